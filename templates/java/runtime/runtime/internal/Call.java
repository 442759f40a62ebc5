package {{ package }}.runtime.internal;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import {{ package }}.runtime.JsonValue;
import {{ package }}.runtime.ValidationException;
import {{ package }}.runtime.Violation;

/**
 * One request of an operation as the generated code builds it: the path's segments, the
 * query and the body. Each segment and query value is percent-encoded here, once.
 */
public final class Call {
    final Operation op;
    private final StringBuilder path = new StringBuilder();
    final List<Map.Entry<String, String>> query = new ArrayList<>();
    byte[] body;
    String contentType;
    /** A body streamed from its start for each attempt, and its length (instead of {@code body}). */
    java.util.function.Supplier<java.io.InputStream> stream;
    long length;
    /** Whether it goes to a pre-signed URL: no credentials, no default headers, any origin. */
    boolean presigned;
    /** An absolute URL to call as it is (a next-page link), instead of the path and query. */
    URI url;

    /**
     * Starts the request of {@code op}.
     *
     * @param op the operation
     */
    public Call(Operation op) {
        this.op = op;
    }

    /**
     * Adds a literal path segment.
     *
     * @param text the segment
     * @return this call
     */
    public Call text(String text) {
        path.append('/').append(text);
        return this;
    }

    /**
     * Adds a path value, percent-encoded as one segment. A value that cannot be one ("",
     * ".", "..", control characters, a lone surrogate) is refused even with validation off:
     * it would reach another endpoint.
     *
     * @param name the parameter's wire name, for the violation
     * @param value the value
     * @return this call
     * @throws ValidationException for a value that cannot be one segment
     */
    public Call segment(String name, String value) {
        String why = unsendable(value);
        if (why != null) {
            throw new ValidationException(List.of(new Violation(name, "cannot be a path segment: " + why)));
        }
        path.append('/').append(encode(value));
        return this;
    }

    private static String unsendable(String value) {
        if (value.isEmpty() || value.equals(".") || value.equals("..")) {
            return "it would reach another endpoint";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return "it holds a control character";
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "it is not well-formed Unicode";
            }
        }
        return null;
    }

    /**
     * Adds a query value, unless it is {@code null}.
     *
     * @param name the wire name
     * @param value the value's text, or {@code null}
     * @return this call
     */
    public Call query(String name, String value) {
        if (value != null) {
            query.add(Map.entry(name, value));
        }
        return this;
    }

    /**
     * Sets a JSON body.
     *
     * @param value the body, or {@code null} for none
     * @return this call
     */
    public Call json(JsonValue value) {
        if (value != null) {
            this.body = value.toJson().getBytes(StandardCharsets.UTF_8);
            this.contentType = "application/json";
        }
        return this;
    }

    /**
     * Sets a body sent as it is.
     *
     * @param bytes the body
     * @param mediaType its media type
     * @return this call
     */
    public Call bytes(byte[] bytes, String mediaType) {
        this.body = bytes.clone();
        this.contentType = mediaType;
        return this;
    }

    /**
     * The path after the base URL, encoded.
     *
     * @return the path
     */
    String path() {
        return path.toString();
    }

    /** A copy calling {@code url} as it is. */
    Call at(URI target) {
        Call c = copy();
        c.url = target;
        return c;
    }

    /** A copy with {@code name} set to {@code value} (any earlier values of it dropped). */
    Call with(String name, String value) {
        Call c = copy();
        c.url = null;
        c.query.removeIf(e -> e.getKey().equals(name));
        c.query.add(Map.entry(name, value));
        return c;
    }

    private Call copy() {
        Call c = new Call(op);
        c.path.append(path);
        c.query.addAll(query);
        c.body = body;
        c.contentType = contentType;
        c.url = url;
        c.presigned = presigned;
        c.stream = stream;
        c.length = length;
        return c;
    }

    /** The request's URL under {@code base} (which ends without a slash). */
    URI uri(String base) {
        if (url != null) {
            return url;
        }
        StringBuilder out = new StringBuilder(base).append(path);
        char sep = '?';
        for (Map.Entry<String, String> e : query) {
            out.append(sep).append(encode(e.getKey())).append('=').append(encode(e.getValue()));
            sep = '&';
        }
        return URI.create(out.toString());
    }

    /** The value of the query parameter {@code name}, or {@code null}. */
    String queryValue(String name) {
        for (Map.Entry<String, String> e : query) {
            if (e.getKey().equals(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** Percent-encodes everything but RFC 3986's unreserved characters. */
    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A")
            .replace("%7E", "~");
    }

    @Override
    public String toString() {
        return op.toString();
    }
}
