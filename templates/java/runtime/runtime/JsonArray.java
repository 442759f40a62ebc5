package {{ package }}.runtime;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** A JSON array: an immutable list of values. */
public final class JsonArray implements JsonValue {
    private final List<JsonValue> elements;

    private JsonArray(List<JsonValue> elements) {
        this.elements = elements;
    }

    /**
     * Returns an array of the given elements, copied.
     *
     * @param elements the elements, in order
     * @return the array
     * @throws NullPointerException if the list or one of its elements is null
     */
    public static JsonArray of(List<? extends JsonValue> elements) {
        return new JsonArray(List.copyOf(elements));
    }

    /** The array of elements a parser has read, none null; it takes the array. */
    static JsonArray ofChecked(JsonValue[] values, int size) {
        JsonValue[] elements = values.length == size ? values : Arrays.copyOf(values, size);
        // A view of the array, not a copy as List.copyOf would make.
        return new JsonArray(Collections.unmodifiableList(Arrays.asList(elements)));
    }

    /**
     * Returns the elements.
     *
     * @return an unmodifiable list of the elements, in order
     */
    public List<JsonValue> elements() {
        return elements;
    }

    /**
     * Returns the number of elements.
     *
     * @return the size
     */
    public int size() {
        return elements.size();
    }

    /**
     * Returns one element.
     *
     * @param index its index, from 0
     * @return the element
     * @throws IndexOutOfBoundsException if there is no element at {@code index}
     */
    public JsonValue get(int index) {
        return elements.get(index);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonArray && ((JsonArray) other).elements.equals(elements);
    }

    @Override
    public int hashCode() {
        return elements.hashCode();
    }

    @Override
    public String toString() {
        return toJson();
    }
}
