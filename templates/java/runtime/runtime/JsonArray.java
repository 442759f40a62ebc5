package {{ package }}.runtime;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** A JSON array: an immutable list of values. */
public final class JsonArray implements JsonValue {
    // The elements in an array of their own, read without a List's interface calls (the
    // hottest reads of decoding); the list given to of(), if any, is kept to be handed out
    // as it is, and a parsed array's list view is made when asked for.
    private final JsonValue[] values;
    private final List<JsonValue> given;

    private JsonArray(JsonValue[] values, List<JsonValue> given) {
        this.values = values;
        this.given = given;
    }

    /**
     * Returns an array of the given elements, copied.
     *
     * @param elements the elements, in order
     * @return the array
     * @throws NullPointerException if the list or one of its elements is null
     */
    public static JsonArray of(List<? extends JsonValue> elements) {
        List<JsonValue> copy = List.copyOf(elements);
        return new JsonArray(copy.toArray(new JsonValue[0]), copy);
    }

    /** The array of elements a parser has read, none null; it takes the array. */
    static JsonArray ofChecked(JsonValue[] values, int size) {
        return new JsonArray(values.length == size ? values : Arrays.copyOf(values, size), null);
    }

    /**
     * Returns the elements.
     *
     * @return an unmodifiable list of the elements, in order
     */
    public List<JsonValue> elements() {
        // A view of the array, not a copy as List.copyOf would make.
        return given != null ? given : Collections.unmodifiableList(Arrays.asList(values));
    }

    /**
     * Returns the number of elements.
     *
     * @return the size
     */
    public int size() {
        return values.length;
    }

    /**
     * Returns one element.
     *
     * @param index its index, from 0
     * @return the element
     * @throws IndexOutOfBoundsException if there is no element at {@code index}
     */
    public JsonValue get(int index) {
        return values[index];
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonArray && ((JsonArray) other).elements().equals(elements());
    }

    @Override
    public int hashCode() {
        return elements().hashCode();
    }

    @Override
    public String toString() {
        return toJson();
    }
}
