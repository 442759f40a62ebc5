package {{ package }}.runtime;

import {{ package }}.runtime.internal.JsonReader;

/**
 * Makes the tree {@link JsonValue#parse} returns straight from the reader's arrays: the
 * reader has refused duplicate names already, so the public builders' checks (and the index
 * they make for every object past a few members) would be paid twice.
 */
final class ParsedTree implements JsonReader.Tree {
    static final ParsedTree INSTANCE = new ParsedTree();

    private ParsedTree() {}

    @Override
    public JsonValue object(String[] names, JsonValue[] values, int size) {
        return JsonObject.ofChecked(names, values, size);
    }

    @Override
    public JsonValue array(JsonValue[] values, int size) {
        return JsonArray.ofChecked(values, size);
    }
}
