package {{ package }}.runtime.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link {{ package }}.runtime.ClientEvent}'s attributes, built one at a time and kept in
 * the order they were given.
 */
public final class EventAttributes {
    private final Map<String, Object> map = new LinkedHashMap<>();

    private EventAttributes() {
    }

    /**
     * Attributes starting with the event's operation, as {@code inspection.operation}.
     *
     * @param operation the operation
     * @return the attributes, to add to
     */
    public static EventAttributes of(String operation) {
        return new EventAttributes().with("inspection.operation", operation);
    }

    /**
     * Adds one attribute after those given so far.
     *
     * @param name the attribute's name
     * @param value its value, which may be {@code null}
     * @return these attributes
     */
    public EventAttributes with(String name, Object value) {
        map.put(name, value);
        return this;
    }

    /**
     * The attributes, in the order they were given.
     *
     * @return the map
     */
    public Map<String, Object> map() {
        return map;
    }
}
