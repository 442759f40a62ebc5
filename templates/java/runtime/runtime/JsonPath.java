package {{ package }}.runtime;


/**
 * Where a value sits in a JSON document ({@code $.data[0].results[2]}), as decoding goes
 * down into it: a small node per step, its text built only when an error names it, so a
 * document read without error builds none.
 */
public final class JsonPath {
    /** The whole document, {@code $}. */
    public static final JsonPath ROOT = new JsonPath(null, null, -1);

    private final JsonPath parent;
    private final String name;
    private final int index;

    private JsonPath(JsonPath parent, String name, int index) {
        this.parent = parent;
        this.name = name;
        this.index = index;
    }

    /**
     * The path of a member of the object here.
     *
     * @param name the member's name
     * @return the path
     */
    public JsonPath member(String name) {
        return new JsonPath(this, name, -1);
    }

    /**
     * The path of an element of the array here.
     *
     * @param index the element's index
     * @return the path
     */
    public JsonPath index(int index) {
        return new JsonPath(this, null, index);
    }

    /** The text: {@code $}, then {@code .name}, {@code ["odd name"]} or {@code [3]} per step. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        write(out);
        return out.toString();
    }

    private void write(StringBuilder out) {
        if (parent == null) {
            out.append('$');
            return;
        }
        parent.write(out);
        if (name == null) {
            out.append('[').append(index).append(']');
        } else if (plain(name)) {
            out.append('.').append(name);
        } else {
            out.append('[').append(JsonString.of(name).toJson()).append(']');
        }
    }

    private static boolean plain(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9')) {
                return false;
            }
        }
        return true;
    }
}
