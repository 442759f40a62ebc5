package {{ package }}.runtime.internal;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

import {{ package }}.runtime.DateOrDateTime;
import {{ package }}.runtime.DateTimeOrRange;
import {{ package }}.runtime.JsonArray;
import {{ package }}.runtime.JsonBoolean;
import {{ package }}.runtime.JsonException;
import {{ package }}.runtime.JsonNull;
import {{ package }}.runtime.JsonNumber;
import {{ package }}.runtime.JsonObject;
import {{ package }}.runtime.JsonString;
import {{ package }}.runtime.JsonPath;
import {{ package }}.runtime.JsonValue;

/**
 * What the generated models read JSON values with, and write them back with: each reader
 * takes the value and its JSON path, and a value that does not fit is a
 * {@link JsonException} naming the path, what was expected and what came.
 */
public final class Wire {
    private Wire() {}

    /** Reads one value at a path: what a container's items are read with. */
    @FunctionalInterface
    public interface Reader<T> {
        /**
         * Reads {@code value}.
         *
         * @param value the JSON value
         * @param path its JSON path
         * @return what it holds
         */
        T read(JsonValue value, JsonPath path);
    }

    /**
     * Reads a whole document with {@code reader}. It is read first with no path at all (a
     * {@code null} one, which every reader here passes on as it is): a document that fits,
     * nearly every one, then makes no path node for any of its values. The first value that
     * does not fit ends that pass, and the document is read again with paths, which meets
     * the same value first (reading changes nothing) and names it in the error, so the
     * result and the error are those of a read with paths.
     *
     * @param <T> what it holds
     * @param json the document
     * @param reader reads it
     * @return what it holds
     * @throws JsonException if it does not fit, naming the path of the first value that
     *     does not
     */
    public static <T> T read(JsonValue json, Reader<T> reader) {
        try {
            return reader.read(json, null);
        } catch (Untracked e) {
            return reader.read(json, JsonPath.ROOT);
        }
    }

    /**
     * What ends a read with no path at its first error ({@link #read}): one instance, with
     * no stack trace, since it never leaves {@code read}.
     */
    private static final class Untracked extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Untracked() {
            super(null, null, false, false);
        }
    }

    private static final Untracked UNTRACKED = new Untracked();

    /**
     * Registers the member names a decoder switches on (see {@link JsonReader#know}).
     *
     * @param names the names
     */
    public static void names(String... names) {
        JsonReader.know(names);
    }

    /**
     * The path of a member.
     *
     * @param path the object's path, or null when none is kept (see {@link #read})
     * @param name the member's name
     * @return {@code path.name}, or {@code path["name"]} where the name is not plain; null
     *     for a null path
     */
    public static JsonPath member(JsonPath path, String name) {
        return path == null ? null : path.member(name);
    }

    /**
     * The path of an array's element.
     *
     * @param path the array's path, or null when none is kept (see {@link #read})
     * @param index the element's index
     * @return {@code path[index]}; null for a null path
     */
    public static JsonPath index(JsonPath path, int index) {
        return path == null ? null : path.index(index);
    }

    /**
     * The failure of a value that does not fit.
     *
     * @param path its path; null in a read with no path, which this then ends (see
     *     {@link #read})
     * @param expected what was expected
     * @param got the value that came
     * @return the exception to throw
     */
    public static JsonException mismatch(JsonPath path, String expected, JsonValue got) {
        if (path == null) {
            throw UNTRACKED;
        }
        String at = path.toString();
        return new JsonException("expected " + expected + ", got " + describe(got), at);
    }

    /**
     * The failure of a required property that is missing.
     *
     * @param path the object's path; null in a read with no path, which this then ends (see
     *     {@link #read})
     * @param name the property
     * @return the exception to throw
     */
    public static JsonException missing(JsonPath path, String name) {
        if (path == null) {
            throw UNTRACKED;
        }
        String at = path.member(name).toString();
        return new JsonException("the required property is missing", at);
    }

    private static String describe(JsonValue value) {
        if (value instanceof JsonNull) {
            return "null";
        } else if (value instanceof JsonBoolean) {
            return "a boolean";
        } else if (value instanceof JsonNumber) {
            return "a number";
        } else if (value instanceof JsonString) {
            return "a string";
        } else if (value instanceof JsonArray) {
            return "an array";
        }
        return "an object";
    }

    /**
     * An object.
     *
     * @param value the value
     * @param path its path
     * @return the object
     */
    public static JsonObject object(JsonValue value, JsonPath path) {
        if (value instanceof JsonObject o) {
            return o;
        }
        throw mismatch(path, "an object", value);
    }

    /**
     * A string.
     *
     * @param value the value
     * @param path its path
     * @return the string
     */
    public static String string(JsonValue value, JsonPath path) {
        if (value instanceof JsonString s) {
            return s.value();
        }
        throw mismatch(path, "a string", value);
    }

    /**
     * An id: a string, or a JSON integer where the interface also takes one written so.
     *
     * @param value the value
     * @param path its path
     * @param integers whether an integer is an id too
     * @return the id's text
     */
    public static String id(JsonValue value, JsonPath path, boolean integers) {
        if (integers && value instanceof JsonNumber n && n.longValueExact().isPresent()) {
            return Long.toString(n.longValueExact().getAsLong());
        }
        if (value instanceof JsonString s) {
            return s.value();
        }
        throw mismatch(path, integers ? "a string or an integer" : "a string", value);
    }

    /**
     * A whole number that fits 64 bits.
     *
     * @param value the value
     * @param path its path
     * @return the number
     */
    public static long int64(JsonValue value, JsonPath path) {
        if (value instanceof JsonNumber n) {
            OptionalLong exact = n.longValueExact();
            if (exact.isPresent()) {
                return exact.getAsLong();
            }
        }
        throw mismatch(path, "a whole number of 64 bits", value);
    }

    /**
     * A whole number that fits 32 bits.
     *
     * @param value the value
     * @param path its path
     * @return the number
     */
    public static int int32(JsonValue value, JsonPath path) {
        if (value instanceof JsonNumber n) {
            OptionalLong exact = n.longValueExact();
            if (exact.isPresent() && exact.getAsLong() == (int) exact.getAsLong()) {
                return (int) exact.getAsLong();
            }
        }
        throw mismatch(path, "a whole number of 32 bits", value);
    }

    /**
     * A number, exact.
     *
     * @param value the value
     * @param path its path
     * @return the number
     */
    public static BigDecimal number(JsonValue value, JsonPath path) {
        if (value instanceof JsonNumber n) {
            return n.bigDecimalValue();
        }
        throw mismatch(path, "a number", value);
    }

    /**
     * A boolean.
     *
     * @param value the value
     * @param path its path
     * @return the boolean
     */
    public static boolean bool(JsonValue value, JsonPath path) {
        if (value instanceof JsonBoolean b) {
            return b.value();
        }
        throw mismatch(path, "a boolean", value);
    }

    /**
     * A {@code YYYY-MM-DD} date.
     *
     * @param value the value
     * @param path its path
     * @return the date
     */
    public static LocalDate date(JsonValue value, JsonPath path) {
        LocalDate date = value instanceof JsonString s ? Dates.date(s.value()) : null;
        if (date == null) {
            throw mismatch(path, "an ISO 8601 date (YYYY-MM-DD)", value);
        }
        return date;
    }

    /**
     * A date-time (see {@link Dates}).
     *
     * @param value the value
     * @param path its path
     * @return the date-time
     */
    public static OffsetDateTime dateTime(JsonValue value, JsonPath path) {
        OffsetDateTime at = value instanceof JsonString s ? Dates.dateTime(s.value()) : null;
        if (at == null) {
            throw mismatch(path, "an ISO 8601 date-time", value);
        }
        return at;
    }

    /**
     * A date, or else a date-time.
     *
     * @param value the value
     * @param path its path
     * @return the value
     */
    public static DateOrDateTime dateOrDateTime(JsonValue value, JsonPath path) {
        if (value instanceof JsonString s) {
            LocalDate date = Dates.date(s.value());
            if (date != null) {
                return DateOrDateTime.of(date);
            }
            OffsetDateTime at = Dates.dateTime(s.value());
            if (at != null) {
                return DateOrDateTime.of(at);
            }
        }
        throw mismatch(path, "an ISO 8601 date or date-time", value);
    }

    /**
     * A date-time, or an array of two.
     *
     * @param value the value
     * @param path its path
     * @return the value
     */
    public static DateTimeOrRange dateTimeOrRange(JsonValue value, JsonPath path) {
        if (value instanceof JsonArray a && a.size() == 2) {
            return DateTimeOrRange.between(dateTime(a.get(0), index(path, 0)), dateTime(a.get(1), index(path, 1)));
        }
        if (value instanceof JsonString) {
            return DateTimeOrRange.at(dateTime(value, path));
        }
        throw mismatch(path, "a date-time or an array of two", value);
    }

    // The same readers for an object's member, named by its object's path and its name:
    // the member's path is made only for an error, not for every member read.

    /**
     * {@link #string(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the text
     */
    public static String string(JsonValue value, JsonPath object, String name) {
        return value instanceof JsonString s ? s.value() : string(value, member(object, name));
    }

    /**
     * {@link #int64(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the number
     */
    public static long int64(JsonValue value, JsonPath object, String name) {
        if (value instanceof JsonNumber n) {
            OptionalLong exact = n.longValueExact();
            if (exact.isPresent()) {
                return exact.getAsLong();
            }
        }
        return int64(value, member(object, name));
    }

    /**
     * {@link #int32(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the number
     */
    public static int int32(JsonValue value, JsonPath object, String name) {
        if (value instanceof JsonNumber n) {
            OptionalLong exact = n.longValueExact();
            if (exact.isPresent() && exact.getAsLong() == (int) exact.getAsLong()) {
                return (int) exact.getAsLong();
            }
        }
        return int32(value, member(object, name));
    }

    /**
     * {@link #number(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the number
     */
    public static BigDecimal number(JsonValue value, JsonPath object, String name) {
        return value instanceof JsonNumber n ? n.bigDecimalValue()
                : number(value, member(object, name));
    }

    /**
     * {@link #bool(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the boolean
     */
    public static boolean bool(JsonValue value, JsonPath object, String name) {
        return value instanceof JsonBoolean b ? b.value() : bool(value, member(object, name));
    }

    /**
     * {@link #date(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the date
     */
    public static LocalDate date(JsonValue value, JsonPath object, String name) {
        LocalDate date = value instanceof JsonString s ? Dates.date(s.value()) : null;
        return date != null ? date : date(value, member(object, name));
    }

    /**
     * {@link #dateTime(JsonValue, JsonPath)} of the member {@code name} of the object at
     * {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the date-time
     */
    public static OffsetDateTime dateTime(JsonValue value, JsonPath object, String name) {
        OffsetDateTime at = value instanceof JsonString s ? Dates.dateTime(s.value()) : null;
        return at != null ? at : dateTime(value, member(object, name));
    }

    /**
     * {@link #dateOrDateTime(JsonValue, JsonPath)} of the member {@code name} of the object
     * at {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the date or date-time
     */
    public static DateOrDateTime dateOrDateTime(JsonValue value, JsonPath object, String name) {
        return dateOrDateTime(value, member(object, name)); // rare: the path made always
    }

    /**
     * {@link #dateTimeOrRange(JsonValue, JsonPath)} of the member {@code name} of the object
     * at {@code object}.
     *
     * @param value the member's value
     * @param object the object's path
     * @param name the member's name
     * @return the date-time or range
     */
    public static DateTimeOrRange dateTimeOrRange(JsonValue value, JsonPath object, String name) {
        return dateTimeOrRange(value, member(object, name)); // rare: the path made always
    }

    /**
     * An array, each item read by {@code item}.
     *
     * @param <T> the items' type
     * @param value the value
     * @param path its path
     * @param item reads one item
     * @return the items, unmodifiable
     */
    public static <T> List<T> list(JsonValue value, JsonPath path, Reader<T> item) {
        if (!(value instanceof JsonArray a)) {
            throw mismatch(path, "an array", value);
        }
        List<T> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            out.add(item.read(a.get(i), index(path, i)));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * An object read as a map, each member's value read by {@code item}, in order.
     *
     * @param <T> the values' type
     * @param value the value
     * @param path its path
     * @param item reads one value
     * @return the map, unmodifiable
     */
    public static <T> Map<String, T> map(JsonValue value, JsonPath path, Reader<T> item) {
        JsonObject o = object(value, path);
        Map<String, T> out = new LinkedHashMap<>();
        for (int i = 0; i < o.size(); i++) {
            String name = o.nameAt(i);
            out.put(name, item.read(o.valueAt(i), member(path, name)));
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * Whether {@code object} is the bare record rather than its inferred envelope: it lacks
     * the envelope's property, or has another that the record knows.
     *
     * @param object the answer
     * @param envelope the envelope's property
     * @param known the properties of the record it wraps
     * @return true for a bare record
     */
    public static boolean bare(JsonObject object, String envelope, java.util.Set<String> known) {
        if (object.get(envelope).isEmpty()) {
            return true;
        }
        for (String k : object.members().keySet()) {
            if (!k.equals(envelope) && known.contains(k)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A union member's object: its record's properties with the tag put back at {@code at}
     * (where it stood when read; first for a member made in code), any other member of the
     * tag's name replaced.
     *
     * @param record the record's properties
     * @param tag the tag's name
     * @param value the tag's value
     * @param at where it goes
     * @return the object
     */
    public static JsonObject tagged(JsonObject record, String tag, JsonValue value, int at) {
        JsonObject.Builder out = JsonObject.builder();
        int index = 0;
        boolean placed = false;
        for (Map.Entry<String, JsonValue> member : record.members().entrySet()) {
            if (member.getKey().equals(tag)) {
                continue;
            }
            if (!placed && index >= at) {
                out.put(tag, value);
                placed = true;
            }
            out.put(member.getKey(), member.getValue());
            index++;
        }
        if (!placed) {
            out.put(tag, value);
        }
        return out.build();
    }

    /**
     * A date as JSON.
     *
     * @param value the date
     * @return a JSON string
     */
    public static JsonValue write(LocalDate value) {
        return JsonString.of(value.toString());
    }

    /**
     * A date-time as JSON (RFC 3339).
     *
     * @param value the date-time
     * @return a JSON string
     */
    public static JsonValue write(OffsetDateTime value) {
        return JsonString.of(Dates.format(value));
    }

    /**
     * A list as a JSON array.
     *
     * @param <T> the items' type
     * @param items the items
     * @param item writes one
     * @return the array
     */
    public static <T> JsonValue array(List<T> items, Function<T, JsonValue> item) {
        List<JsonValue> out = new ArrayList<>(items.size());
        for (T t : items) {
            out.add(item.apply(t));
        }
        return JsonArray.of(out);
    }

    /**
     * A map as a JSON object, in its order.
     *
     * @param <T> the values' type
     * @param members the map
     * @param item writes one value
     * @return the object
     */
    public static <T> JsonValue object(Map<String, T> members, Function<T, JsonValue> item) {
        Map<String, JsonValue> out = new LinkedHashMap<>();
        for (Map.Entry<String, T> m : members.entrySet()) {
            out.put(m.getKey(), item.apply(m.getValue()));
        }
        return JsonObject.of(out);
    }
}
