package {{ package }}.runtime;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A JSON object: an immutable map of member names to values that keeps the members' order.
 * Two objects are equal when they have the same members, in any order (as for {@link Map}).
 */
public final class JsonObject implements JsonValue {
    private final LinkedHashMap<String, JsonValue> members; // never changed once built

    private JsonObject(LinkedHashMap<String, JsonValue> members) {
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
        return new Builder(new LinkedHashMap<>());
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
        // The capacity that holds that many under HashMap's load factor of 0.75.
        return new Builder(new LinkedHashMap<>((int) Math.ceil(expectedMembers / 0.75)));
    }

    /**
     * Returns the members.
     *
     * @return an unmodifiable map of the members, iterating in their order
     */
    public Map<String, JsonValue> members() {
        return Collections.unmodifiableMap(members);
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
        private LinkedHashMap<String, JsonValue> members;

        private Builder(LinkedHashMap<String, JsonValue> members) {
            this.members = members;
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
            if (members == null) {
                throw new IllegalStateException("this builder has already built its object");
            }
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (members.putIfAbsent(name, value) != null) {
                throw new IllegalArgumentException("duplicate member name \"" + name + "\"");
            }
            return this;
        }

        /**
         * Returns the object of the members added. The builder cannot be used after this.
         *
         * @return the object
         * @throws IllegalStateException if {@code build()} was already called
         */
        public JsonObject build() {
            if (members == null) {
                throw new IllegalStateException("this builder has already built its object");
            }
            JsonObject object = new JsonObject(members);
            members = null; // the object now owns the map: no copy, and no later change
            return object;
        }
    }
}
