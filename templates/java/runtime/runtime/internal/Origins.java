package {{ package }}.runtime.internal;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Pattern;

import {{ package }}.runtime.ConfigException;

/** Origins: what a base URL may be, and which URLs share its origin (and so its credentials). */
final class Origins {
    private static final Pattern QUERY = Pattern.compile("(https?://[^\\s?#]*)\\?[^\\s#]*");

    private Origins() {
    }

    /** A base URL: https, or plain http on a loopback host; without query or fragment. */
    static URI secureBase(String text) {
        URI uri = parse(text, "the base URL");
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new ConfigException("the base URL must have no query or fragment");
        }
        if ("http".equals(scheme(uri)) && !loopback(uri.getHost())) {
            throw new ConfigException("the base URL must be https (plain http only for a loopback host), not "
                + origin(uri));
        }
        return uri;
    }

    /** A pre-signed URL: absolute http(s). */
    static URI presigned(String text) {
        return parse(text, "the pre-signed URL");
    }

    private static URI parse(String text, String what) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException | NullPointerException e) {
            throw new ConfigException(what + " is not a URL");
        }
        String scheme = scheme(uri);
        if (!("https".equals(scheme) || "http".equals(scheme)) || uri.getHost() == null) {
            throw new ConfigException(what + " must be an absolute http(s) URL");
        }
        return uri;
    }

    private static String scheme(URI uri) {
        return uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
    }

    static boolean loopback(String host) {
        if (host == null) {
            return false;
        }
        String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static int port(URI uri) {
        return uri.getPort() != -1 ? uri.getPort() : "https".equals(scheme(uri)) ? 443 : 80;
    }

    static boolean sameOrigin(URI a, URI b) {
        return a.getHost() != null && b.getHost() != null && scheme(a) != null && scheme(a).equals(scheme(b))
            && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
    }

    /** {@code scheme://host[:port]}, the port only when it is not the scheme's. */
    static String origin(URI uri) {
        String scheme = scheme(uri);
        boolean usual = uri.getPort() == -1 || uri.getPort() == ("https".equals(scheme) ? 443 : 80);
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (usual ? "" : ":" + uri.getPort());
    }

    /** A URL without its query (a pre-signed one's signature), for events and errors. */
    static String withoutQuery(URI uri) {
        return origin(uri) + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    /** Text with every URL's query cut off. */
    static String stripQueries(String text) {
        return QUERY.matcher(text).replaceAll("$1");
    }
}
