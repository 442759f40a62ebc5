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
    private final Members members; // never changed once built

    private JsonObject(Members members) {
        this.members = members;
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
        return members;
    }

    /**
     * Returns the value of one member.
     *
     * @param name the member's name
     * @return its value, or empty when there is no such member
     */
    public Optional<JsonValue> get(String name) {
        return Optional.ofNullable(members.get(name));
    }

    /**
     * Returns the number of members.
     *
     * @return the size
     */
    public int size() {
        return members.size();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof JsonObject && ((JsonObject) other).members.equals(members);
    }

    @Override
    public int hashCode() {
        return members.hashCode();
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
            if (Members.find(names, size, index, name) >= 0) {
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
            } else if (size == Members.SCANNED) {
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
            return new JsonObject(new Members(names, values, size, index));
        }
    }

    /**
     * The members, in order, as two arrays: no entry objects or hash table for the small
     * objects most documents are made of (a name is found by scanning up to
     * {@link #SCANNED} of them, through an index past that). Immutable.
     */
    private static final class Members extends AbstractMap<String, JsonValue> {
        static final int SCANNED = 8;

        private final String[] names;
        private final JsonValue[] values;
        private final int size;
        private final HashMap<String, Integer> index;

        Members(String[] names, JsonValue[] values, int size, HashMap<String, Integer> index) {
            this.names = names;
            this.values = values;
            this.size = size;
            this.index = index;
        }

        static int find(String[] names, int size, HashMap<String, Integer> index, Object name) {
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
        public JsonValue get(Object name) {
            int at = find(names, size, index, name);
            return at < 0 ? null : values[at];
        }

        @Override
        public boolean containsKey(Object name) {
            return find(names, size, index, name) >= 0;
        }

        @Override
        public int size() {
            return size;
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
                            return next < size;
                        }

                        @Override
                        public Map.Entry<String, JsonValue> next() {
                            if (next >= size) {
                                throw new NoSuchElementException();
                            }
                            int at = next++;
                            return new AbstractMap.SimpleImmutableEntry<>(names[at], values[at]);
                        }
                    };
                }

                @Override
                public int size() {
                    return size;
                }
            };
        }
    }
}
