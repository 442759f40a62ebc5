package {{ package }}.runtime.internal;

import java.util.List;

/** Keeps secrets out of text: every one of four characters or more is replaced. */
final class Secrets {
    static final String REDACTED = "<redacted>";

    private Secrets() {
    }

    static String scrub(String text, List<String> secrets) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String s : secrets) {
            if (s != null && s.length() >= 4) {
                out = out.replace(s, REDACTED);
            }
        }
        return out;
    }

    /** Whether a header can carry {@code value}: visible ASCII, spaces and tabs. */
    static boolean headerSafe(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!(c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e))) {
                return false;
            }
        }
        return true;
    }
}
