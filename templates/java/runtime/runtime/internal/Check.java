package {{ package }}.runtime.internal;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import {{ package }}.runtime.Violation;

/**
 * The documented limits of request values, checked before anything is sent: each check adds
 * what it finds to {@code out}, so a caller sees every violation at once. Lengths count
 * code points; the messages are the other clients' word for word.
 */
public final class Check {
    private Check() {}

    /** Checks one value at a path: what a container's items are checked with. */
    @FunctionalInterface
    public interface Item<T> {
        /**
         * Checks {@code value}.
         *
         * @param value the value
         * @param path its path
         */
        void check(T value, String path);
    }

    /**
     * The path of a member: {@code path.name}, or {@code name} at the top.
     *
     * @param path the record's path, empty at the top
     * @param name the member's wire name
     * @return the member's path
     */
    public static String at(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    /**
     * A string's limits.
     *
     * @param text the string
     * @param secret whether its characters may not be shown
     * @param maxLength at most this many characters, or {@code null}
     * @param length exactly this many, or {@code null}
     * @param allow {@code ascii_alphanumeric} or {@code ascii_digits}, or {@code null}
     * @param forbid characters refused even where {@code allow} takes them
     * @param path its path
     * @param out where violations go
     */
    public static void string(String text, boolean secret, Integer maxLength, Integer length, String allow,
            String forbid, String path, List<Violation> out) {
        int n = text.codePointCount(0, text.length());
        if (maxLength != null && n > maxLength) {
            out.add(new Violation(path, "must be at most " + maxLength + " characters, got " + n));
        }
        if (length != null && n != length) {
            out.add(new Violation(path, "must be exactly " + length + " characters, got " + n));
        }
        if (allow == null) {
            return;
        }
        int position = 0;
        for (int i = 0; i < text.length(); i += Character.charCount(text.codePointAt(i))) {
            int c = text.codePointAt(i);
            position++;
            if (!allowed(allow, c) || forbid.indexOf(c) >= 0) {
                String found = secret ? "a character not allowed" : quoted(c);
                out.add(new Violation(path, "must hold only " + describe(allow) + never(forbid) + "; found " + found
                        + " at position " + position));
                return;
            }
        }
    }

    private static boolean allowed(String allow, int c) {
        boolean digit = c >= '0' && c <= '9';
        if (allow.equals("ascii_digits")) {
            return digit;
        }
        return digit || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    private static String describe(String allow) {
        return allow.equals("ascii_digits") ? "ASCII digits" : "ASCII letters and digits";
    }

    private static String never(String forbid) {
        if (forbid.isEmpty()) {
            return "";
        }
        StringBuilder text = new StringBuilder(", never ");
        for (int i = 0; i < forbid.length(); i++) {
            text.append(i == 0 ? "" : ", ").append(forbid.charAt(i));
        }
        return text.toString();
    }

    /** A character as the other clients show it: {@code 'O'}, {@code '\n'}. */
    private static String quoted(int c) {
        String inner;
        switch (c) {
            case '\n' -> inner = "\\n";
            case '\r' -> inner = "\\r";
            case '\t' -> inner = "\\t";
            case '\\' -> inner = "\\\\";
            case '\'' -> inner = "\\'";
            default -> inner = c < 0x20 ? "\\u{" + Integer.toHexString(c) + "}" : new String(Character.toChars(c));
        }
        return "'" + inner + "'";
    }

    /**
     * A whole number's range.
     *
     * @param n the number
     * @param min at least this, or {@code null}
     * @param max at most this, or {@code null}
     * @param path its path
     * @param out where violations go
     */
    public static void range(long n, Long min, Long max, String path, List<Violation> out) {
        if (min != null && n < min) {
            out.add(new Violation(path, "must be at least " + min + ", got " + n));
        }
        if (max != null && n > max) {
            out.add(new Violation(path, "must be at most " + max + ", got " + n));
        }
    }

    /**
     * A number's range.
     *
     * @param n the number
     * @param min at least this, or {@code null}
     * @param max at most this, or {@code null}
     * @param path its path
     * @param out where violations go
     */
    public static void range(BigDecimal n, Long min, Long max, String path, List<Violation> out) {
        if (min != null && n.compareTo(BigDecimal.valueOf(min)) < 0) {
            out.add(new Violation(path, "must be at least " + min + ", got " + n.toPlainString()));
        }
        if (max != null && n.compareTo(BigDecimal.valueOf(max)) > 0) {
            out.add(new Violation(path, "must be at most " + max + ", got " + n.toPlainString()));
        }
    }

    /**
     * A list's length, then each item.
     *
     * @param <T> the items' type
     * @param items the list
     * @param minItems at least this many, or {@code null}
     * @param maxItems at most this many, or {@code null}
     * @param path its path
     * @param out where violations go
     * @param item checks one item, or {@code null}
     */
    public static <T> void items(List<T> items, Integer minItems, Integer maxItems, String path,
            List<Violation> out, Item<T> item) {
        if (minItems != null && items.size() < minItems) {
            out.add(new Violation(path, "must have at least " + minItems + " items, got " + items.size()));
        }
        if (maxItems != null && items.size() > maxItems) {
            out.add(new Violation(path, "must have at most " + maxItems + " items, got " + items.size()));
        }
        if (item != null) {
            for (int i = 0; i < items.size(); i++) {
                item.check(items.get(i), path + "[" + i + "]");
            }
        }
    }

    /**
     * Each value of a map.
     *
     * @param <T> the values' type
     * @param members the map
     * @param path its path
     * @param item checks one value
     */
    public static <T> void values(Map<String, T> members, String path, Item<T> item) {
        for (Map.Entry<String, T> m : members.entrySet()) {
            item.check(m.getValue(), at(path, m.getKey()));
        }
    }
}
