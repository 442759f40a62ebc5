package {{ package }}.runtime.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import {{ package }}.runtime.DecodeException;
import {{ package }}.runtime.JsonException;
import {{ package }}.runtime.JsonValue;
import {{ package }}.runtime.WebhookException;

/** What the interfaces' {@code Webhooks} share: reading a delivery, checking its header. */
public final class Delivery {
    private Delivery() {
    }

    /**
     * A delivery's body read with {@code reader}.
     *
     * @param <T> the event type
     * @param body the body
     * @param reader reads the event
     * @return the event
     * @throws DecodeException (status 0: a delivery has none) for a body that does not fit
     */
    public static <T> T read(byte[] body, Wire.Reader<T> reader) {
        try {
            return Wire.read(JsonValue.parse(body), reader);
        } catch (JsonException e) {
            String path = e.path() != null ? e.path() : "$";
            return fail("the delivery does not fit: " + e.getMessage(), path);
        }
    }

    private static <T> T fail(String message, String path) {
        throw new DecodeException(message, 0, path, null);
    }

    /**
     * Checks that {@code headers} hold {@code name} (any case) once, equal to {@code expected}.
     *
     * @param headers the delivery's headers
     * @param name the header
     * @param expected its value
     * @throws WebhookException when it is missing, repeated or different
     */
    public static void verify(Map<String, List<String>> headers, String name, String expected) {
        String wanted = name.toLowerCase(Locale.ROOT);
        List<String> values = headers.entrySet().stream()
            .filter(e -> e.getKey() != null && e.getKey().toLowerCase(Locale.ROOT).equals(wanted))
            .flatMap(e -> e.getValue().stream())
            .toList();
        if (values.size() != 1) {
            throw new WebhookException("the delivery has no single `" + name + "` header");
        }
        byte[] got = values.get(0).getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(got, expected.getBytes(StandardCharsets.UTF_8))) {
            throw new WebhookException("the delivery's `" + name + "` header does not match");
        }
    }
}
