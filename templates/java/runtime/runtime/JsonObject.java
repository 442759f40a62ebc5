package {{ package }}.runtime;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A JSON object: an immutable map of member names to values that keeps the members' order.
 * Two objects are equal when they have the same members, in any order (as for {@link Map}).
 */
public final class JsonObject implements JsonValue {
    // A name is found by scanning up to SCANNED names, through an index past that.
    private static final int SCANNED = 8;

    // The members, in order, as two arrays (no entry objects or hash table for the small
    // objects most documents are made of), never changed once built; the arrays may be
    // longer than size.
    private final String[] names;
    private final JsonValue[] values;
    private final int size;
    // Made whole before it is published, at the first lookup that needs it: a thread sees
    // null or the complete index.
    private volatile HashMap<String, Integer> index;
    // The Map view, made when first asked for; it holds nothing but this object, so a
    // thread that sees it sees it whole.
    private Members view;

    private JsonObject(String[] names, JsonValue[] values, int size,
            HashMap<String, Integer> index) {
        this.names = names;
        this.values = values;
        this.size = size;
        this.index = index;
    }

    /**
     * Returns an object of the given members, copied in the map's iteration order.
     *
     * @param members the members
     * @return the object
     * @throws NullPointerException if the map, one of its names or one of its values is null
     */
    public static JsonObject of(Map<String, ? extends JsonValue> members) {
        Builder builder = builder(members.size());
        for (Map.Entry<String, ? extends JsonValue> member : members.entrySet()) {
            builder.put(member.getKey(), member.getValue());
        }
        return builder.build();
    }

    /**
     * Returns a builder that adds members one by one, in order.
     *
     * @return an empty builder
     */
    public static Builder builder() {
        return new Builder(8);
    }

    /**
     * Returns a builder sized for a number of members, which it may then hold without
     * growing.
     *
     * @param expectedMembers how many members are expected
     * @return an empty builder
     * @throws IllegalArgumentException if {@code expectedMembers} is negative
     */
    public static Builder builder(int expectedMembers) {
        if (expectedMembers < 0) {
            throw new IllegalArgumentException("negative size: " + expectedMembers);
        }
        return new Builder(Math.max(expectedMembers, 1));
    }

    /**
     * Returns the members.
     *
     * @return an unmodifiable map of the members, iterating in their order
     */
    public Map<String, JsonValue> members() {
        Members made = view;
        if (made == null) {
            made = new Members(this);
            view = made;
        }
        return made;
    }

    /**
     * Returns the value of one member.
     *
     * @param name the member's name
     * @return its value, or empty when there is no such member
     */
    public Optional<JsonValue> get(String name) {
        int at = find(name);
        return at < 0 ? Optional.empty() : Optional.of(values[at]);
    }

    /**
     * Returns the number of members.
     *
     * @return the size
     */
    public int size() {
        return size;
    }

    /**
     * Returns the name of the member at a position, counted in the object's order.
     *
     * @param index the position, from 0
     * @return its name
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #size()}
     */
    public String nameAt(int index) {
        Objects.checkIndex(index, size);
        return names[index];
    }

    /**
     * Returns the value of the member at a position, counted in the object's order.
     *
     * @param index the position, from 0
     * @return its value
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #size()}
     */
    public JsonValue valueAt(int index) {
        Objects.checkIndex(index, size);
        return values[index];
    }

    /**
     * Returns where a member stands in the object's order.
     *
     * @param name the member's name
     * @return its position, from 0, or -1 if the object has no such member
     */
    public int indexOf(String name) {
        return find(name);
    }

    private int find(Object name) {
        HashMap<String, Integer> made = index;
        if (made == null && size > SCANNED) {
            made = new HashMap<>();
            for (int i = 0; i < size; i++) {
                made.put(names[i], i);
            }
            index = made;
        }
        return find(names, size, made, name);
    }

    private static int find(String[] names, int size, HashMap<String, Integer> index,
            Object name) {
        if (index != null) {
            Integer at = index.get(name);
            return at == null ? -1 : at;
        }
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonObject && ((JsonObject) other).members().equals(members());
    }

    @Override
    public int hashCode() {
        return members().hashCode();
    }

    @Override
    public String toString() {
        return toJson();
    }

    /** Adds an object's members in order, refusing a name given twice. Not thread-safe. */
    public static final class Builder {
        private String[] names;
        private JsonValue[] values;
        private int size;
        /** Where each name is, once there are more than a few to scan. */
        private HashMap<String, Integer> index;
        private boolean built;

        private Builder(int capacity) {
            this.names = new String[capacity];
            this.values = new JsonValue[capacity];
        }

        /**
         * Adds a member after those already added.
         *
         * @param name the member's name
         * @param value its value
         * @return this builder
         * @throws IllegalArgumentException if a member of that name was already added
         * @throws IllegalStateException if {@link #build()} was already called
         * @throws NullPointerException if {@code name} or {@code value} is null
         */
        public Builder put(String name, JsonValue value) {
            if (built) {
                throw new IllegalStateException("this builder has already built its object");
            }
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (find(names, size, index, name) >= 0) {
                throw new IllegalArgumentException("duplicate member name \"" + name + "\"");
            }
            if (size == names.length) {
                names = Arrays.copyOf(names, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            names[size] = name;
            values[size] = value;
            if (index != null) {
                index.put(name, size);
            } else if (size == SCANNED) {
                index = new HashMap<>();
                for (int i = 0; i <= size; i++) {
                    index.put(names[i], i);
                }
            }
            size++;
            return this;
        }

        /**
         * Returns the object of the members added. The builder cannot be used after this.
         *
         * @return the object
         * @throws IllegalStateException if {@code build()} was already called
         */
        public JsonObject build() {
            if (built) {
                throw new IllegalStateException("this builder has already built its object");
            }
            built = true;
            // The object now owns the arrays: no copy, and no later change.
            return new JsonObject(names, values, size, index);
        }
    }

    /**
     * The object of members a parser has already checked: distinct names, none null. The
     * object takes the arrays, trimmed if they are much longer than {@code size}.
     */
    static JsonObject ofChecked(String[] names, JsonValue[] values, int size) {
        if (names.length > size + size / 2 + 4) {
            names = Arrays.copyOf(names, size);
            values = Arrays.copyOf(values, size);
        }
        return new JsonObject(names, values, size, null);
    }

    /** The object as an immutable {@link Map}, iterating in the members' order. */
    private static final class Members extends AbstractMap<String, JsonValue> {
        private final JsonObject object;

        Members(JsonObject object) {
            this.object = object;
        }

        @Override
        public JsonValue get(Object name) {
            int at = object.find(name);
            return at < 0 ? null : object.values[at];
        }

        @Override
        public boolean containsKey(Object name) {
            return object.find(name) >= 0;
        }

        @Override
        public int size() {
            return object.size;
        }

        @Override
        public Set<Map.Entry<String, JsonValue>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<String, JsonValue>> iterator() {
                    return new Iterator<>() {
                        private int next;

                        @Override
                        public boolean hasNext() {
                            return next < object.size;
                        }

                        @Override
                        public Map.Entry<String, JsonValue> next() {
                            if (next >= object.size) {
                                throw new NoSuchElementException();
                            }
                            int at = next++;
                            return new AbstractMap.SimpleImmutableEntry<>(object.names[at],
                                    object.values[at]);
                        }
                    };
                }

                @Override
                public int size() {
                    return object.size;
                }
            };
        }
    }
}
