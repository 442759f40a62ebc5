package {{ package }}.runtime.internal;

import {{ package }}.runtime.JsonArray;
import {{ package }}.runtime.JsonBoolean;
import {{ package }}.runtime.JsonException;
import {{ package }}.runtime.JsonNull;
import {{ package }}.runtime.JsonNumber;
import {{ package }}.runtime.JsonObject;
import {{ package }}.runtime.JsonString;
import {{ package }}.runtime.JsonValue;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A streaming pull parser of JSON over UTF-8 bytes: {@link #peek()} tells what comes next,
 * and the {@code begin}, {@code end} and {@code next} methods consume it.
 *
 * <p>The rules it reads by:
 * <ul>
 *   <li>The input is RFC 8259 JSON in UTF-8, one value with optional whitespace around it. A
 *       leading byte order mark is skipped. Nothing beyond the grammar is accepted: no
 *       comments, single quotes, trailing commas, leading zeros, {@code +1}, {@code .5},
 *       {@code NaN} or {@code Infinity}. Empty input and anything but whitespace after the
 *       value are refused.</li>
 *   <li>Invalid UTF-8 is refused at the offset of the sequence's first byte: truncated
 *       sequences, bad continuation bytes, overlong encodings, encoded surrogates, code
 *       points above U+10FFFF, and the bytes C0, C1 and F5 to FF. Read from a
 *       {@link String}, an unpaired surrogate character is refused likewise.</li>
 *   <li>Strings take the eight RFC escapes and <code>&#92;uXXXX</code>. An escaped
 *       surrogate pair gives its one character; an escaped lone surrogate (such as
 *       <code>"&#92;ud800"</code>) is kept as that {@code char}, since dropping it would
 *       change the text, and {@link JsonWriter} writes it back as the same escape. Raw
 *       control characters (below U+0020) in strings are refused.</li>
 *   <li>Numbers keep their exact text ({@link JsonNumber}). A number longer than 1000
 *       characters, or with an exponent above 9999 in magnitude, is refused, so that no
 *       later {@link java.math.BigDecimal} work on it is costly.</li>
 *   <li>A member name given twice in one object is refused, at the second one; the message
 *       names it, clipped to 40 characters.</li>
 *   <li>At most {@value #MAX_DEPTH} arrays and objects may be open at once. Nothing here
 *       recurses, so no input causes a {@link StackOverflowError}.</li>
 *   <li>Time and memory are linear in the input's size.</li>
 *   <li>Every error, whatever the input, is a {@link JsonException} giving the byte offset,
 *       line and column. So is a call that does not fit what comes next (such as
 *       {@link #nextString()} at a number), which also names the JSON {@link #path()}.</li>
 * </ul>
 *
 * <p>After a {@code JsonException} for malformed input the reader's state is unspecified:
 * discard it. One for a call that does not fit leaves the reader as it was, so that another
 * call may be tried. Not thread-safe.
 */
public final class JsonReader {
    /** The most arrays and objects that may be open at once. */
    public static final int MAX_DEPTH = 128;

    // What the innermost open scope expects next.
    private static final int EMPTY_DOCUMENT = 0;
    private static final int NONEMPTY_DOCUMENT = 1;
    private static final int EMPTY_ARRAY = 2;
    private static final int NONEMPTY_ARRAY = 3;
    private static final int EMPTY_OBJECT = 4;
    private static final int DANGLING_NAME = 5; // a name and ':' read, its value not yet
    private static final int NONEMPTY_OBJECT = 6;

    private static final JsonToken[] TOKENS = JsonToken.values();
    private static final int BEGIN_OBJECT = JsonToken.BEGIN_OBJECT.ordinal();
    private static final int END_OBJECT = JsonToken.END_OBJECT.ordinal();
    private static final int BEGIN_ARRAY = JsonToken.BEGIN_ARRAY.ordinal();
    private static final int END_ARRAY = JsonToken.END_ARRAY.ordinal();
    private static final int NAME = JsonToken.NAME.ordinal();
    private static final int STRING = JsonToken.STRING.ordinal();
    private static final int NUMBER = JsonToken.NUMBER.ordinal();
    private static final int BOOLEAN = JsonToken.BOOLEAN.ordinal();
    private static final int NULL = JsonToken.NULL.ordinal();
    private static final int NOT_PEEKED = -1;

    // Eight bytes of the input as one long, for scanning strings a word at a time.
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] buf;
    private final int limit;
    private final int bomLength;
    private int pos;

    // Per open scope, index 0 being the document: its state, the array index of the current
    // element, the object's current member name and the names it has had. Grown as nesting
    // deepens, up to MAX_DEPTH + 1 long: most documents are shallow.
    private int[] scopes = new int[16];
    private int[] indices = new int[16];
    private String[] names = new String[16];
    private NameSet[] seen = new NameSet[16];
    private int depth;

    // The peeked token's ordinal, or NOT_PEEKED until peek() has looked at what comes next:
    // an int, not a reference, since it changes at every token and storing a reference
    // costs the garbage collector's write barriers.
    private int peeked = NOT_PEEKED;
    private int tokenStart; // offset of the peeked token's first byte
    private int numberEnd; // offset after the peeked number
    private StringBuilder chars; // reused for strings that need decoding

    // Short names read before: see readCached. String values under 16 bytes are kept apart
    // (readValue): a union's tags and an enum's values repeat, and one kept is hashed once
    // for every switch on it; ids and text are mostly one-offs, and longer values are not
    // kept at all (keeping them all was measured to cost more than it saved).
    // The member names the generated decoders switch on, each as the decoder's own String
    // constant (registered by its class, Wire.names): a name read that is one of them is
    // given as that constant, which a switch then finds equal at once (the same object)
    // where it compared the bytes of two equal strings. Only the generated classes add to
    // it, so it never grows with what is read.
    private static final ConcurrentHashMap<String, String> KNOWN = new ConcurrentHashMap<>();

    // Made at the first string: a reader of a document with none makes neither table.
    private Strings nameCache;
    private Strings valueCache;

    /**
     * Creates a reader of UTF-8 bytes. The array is read in place: do not change it while
     * reading.
     *
     * @param utf8 the JSON input
     */
    public JsonReader(byte[] utf8) {
        this.buf = utf8;
        this.limit = utf8.length;
        boolean bom = limit >= 3 && (utf8[0] & 0xFF) == 0xEF && (utf8[1] & 0xFF) == 0xBB
                && (utf8[2] & 0xFF) == 0xBF;
        this.bomLength = bom ? 3 : 0;
        this.pos = bomLength;
        this.scopes[0] = EMPTY_DOCUMENT;
    }

    /**
     * Creates a reader of a JSON text. Offsets in errors count the text's UTF-8 bytes.
     *
     * @param json the JSON input
     * @throws JsonException if the text holds an unpaired surrogate character, which has no
     *     UTF-8 form
     */
    public JsonReader(String json) {
        this(json.getBytes(StandardCharsets.UTF_8));
        // getBytes writes '?' for an unpaired surrogate; refuse rather than change the text.
        // Only text with non-ASCII characters encodes to more bytes than chars.
        if (buf.length != json.length()) {
            checkSurrogates(json);
        }
    }

    /**
     * Makes every name read that equals one of {@code names} that very {@code String}: the
     * generated decoders give the names they switch on.
     *
     * @param names member names
     */
    public static void know(String... names) {
        for (String name : names) {
            KNOWN.putIfAbsent(name, name);
        }
    }

    /** {@code name} as the constant {@link #know} was given for it, if it was. */
    private static String known(String name) {
        String constant = KNOWN.get(name);
        return constant != null ? constant : name;
    }

    /**
     * Tells what comes next, without consuming it.
     *
     * @return the next token
     * @throws JsonException if the input is malformed at that point
     */
    public JsonToken peek() {
        int token = peeked;
        return token != NOT_PEEKED ? TOKENS[token] : doPeek();
    }

    /**
     * Tells whether the current array or object has another element or member.
     *
     * @return false at the end of an array, of an object, or of the input
     * @throws JsonException if the input is malformed at that point
     */
    public boolean hasNext() {
        JsonToken token = peek();
        return token != JsonToken.END_ARRAY && token != JsonToken.END_OBJECT
                && token != JsonToken.END_DOCUMENT;
    }

    /**
     * Consumes the start of an array.
     *
     * @throws JsonException if an array does not come next, or it would be nested deeper
     *     than {@value #MAX_DEPTH}
     */
    public void beginArray() {
        expect(JsonToken.BEGIN_ARRAY);
        push(EMPTY_ARRAY);
    }

    /**
     * Consumes the end of an array.
     *
     * @throws JsonException if the end of an array does not come next
     */
    public void endArray() {
        expect(JsonToken.END_ARRAY);
        pop();
    }

    /**
     * Consumes the start of an object.
     *
     * @throws JsonException if an object does not come next, or it would be nested deeper
     *     than {@value #MAX_DEPTH}
     */
    public void beginObject() {
        expect(JsonToken.BEGIN_OBJECT);
        push(EMPTY_OBJECT);
        NameSet set = seen[depth];
        if (set == null) {
            seen[depth] = new NameSet();
        } else {
            set.clear();
        }
    }

    /**
     * Consumes the end of an object.
     *
     * @throws JsonException if the end of an object does not come next
     */
    public void endObject() {
        expect(JsonToken.END_OBJECT);
        pop();
    }

    /**
     * Consumes a member's name and the {@code :} after it.
     *
     * @return the name
     * @throws JsonException if a name does not come next, it is malformed, the object already
     *     had it, or no {@code :} follows
     */
    public String nextName() {
        expect(JsonToken.NAME);
        int start = tokenStart;
        if (nameCache == null) {
            nameCache = new Strings(limit);
        }
        String name = readCached(start, nameCache);
        if (!seen[depth].add(name)) {
            throw syntax(start, "duplicate member name " + JsonWriter.quote(clip(name)));
        }
        int p = skipWhitespace(pos);
        if (p >= limit || buf[p] != ':') {
            throw syntax(p, "expected ':' after a member name");
        }
        pos = p + 1;
        names[depth] = name;
        scopes[depth] = DANGLING_NAME;
        peeked = NOT_PEEKED;
        return name;
    }

    /**
     * Consumes a string value.
     *
     * @return its text, escapes decoded
     * @throws JsonException if a string does not come next, or it is malformed
     */
    public String nextString() {
        expect(JsonToken.STRING);
        String value = readString(tokenStart);
        peeked = NOT_PEEKED;
        afterValue();
        return value;
    }

    /** {@link #nextString()}, a short value kept in {@link #valueCache}. */
    private String nextShortCached() {
        expect(JsonToken.STRING);
        if (valueCache == null) {
            valueCache = new Strings(limit);
        }
        String value = readShortCached(tokenStart, valueCache);
        peeked = NOT_PEEKED;
        afterValue();
        return value;
    }

    /**
     * Consumes a number value.
     *
     * @return the number, with its exact text
     * @throws JsonException if a number does not come next
     */
    public JsonNumber nextNumber() {
        expect(JsonToken.NUMBER);
        String text = new String(buf, tokenStart, numberEnd - tokenStart,
                StandardCharsets.ISO_8859_1);
        pos = numberEnd;
        peeked = NOT_PEEKED;
        afterValue();
        return JsonNumber.parse(text); // scanned already, so it is valid
    }

    /**
     * Consumes a boolean value.
     *
     * @return the value
     * @throws JsonException if a boolean does not come next
     */
    public boolean nextBoolean() {
        expect(JsonToken.BOOLEAN);
        boolean value = buf[tokenStart] == 't';
        pos = tokenStart + (value ? 4 : 5);
        peeked = NOT_PEEKED;
        afterValue();
        return value;
    }

    /**
     * Consumes a {@code null} value.
     *
     * @throws JsonException if {@code null} does not come next
     */
    public void nextNull() {
        expect(JsonToken.NULL);
        pos = tokenStart + 4;
        peeked = NOT_PEEKED;
        afterValue();
    }

    /**
     * Consumes the next value, whole, checking it as strictly as reading it would. At a
     * member's name, consumes the name and its value.
     *
     * @throws JsonException if a value does not come next, or it is malformed
     */
    public void skipValue() {
        if (peek() == JsonToken.NAME) {
            nextName();
        }
        int open = 0;
        do {
            JsonToken token = peek();
            switch (token) {
                case BEGIN_ARRAY -> { beginArray(); open++; }
                case BEGIN_OBJECT -> { beginObject(); open++; }
                case END_ARRAY, END_OBJECT -> {
                    if (open == 0) {
                        throw mismatch("expected a value, got " + token.description());
                    }
                    pop();
                    open--;
                }
                case NAME -> nextName();
                case STRING -> nextString();
                case NUMBER -> {
                    pos = numberEnd; // no need to make its text
                    peeked = NOT_PEEKED;
                    afterValue();
                }
                case BOOLEAN -> nextBoolean();
                case NULL -> nextNull();
                default -> throw mismatch("expected a value, got " + token.description());
            }
        } while (open > 0);
    }

    /**
     * Makes the arrays and objects of a tree that {@link #readValue(Tree)} reads. The arrays
     * are handed over: the reader never touches them again. They may be longer than the
     * size given.
     */
    public interface Tree {
        /**
         * Makes an object of the first {@code size} names and values; the names are distinct.
         *
         * @param names the members' names, in order
         * @param values their values
         * @param size how many members
         * @return the object
         */
        JsonValue object(String[] names, JsonValue[] values, int size);

        /**
         * Makes an array of the first {@code size} values.
         *
         * @param values the elements, in order
         * @param size how many elements
         * @return the array
         */
        JsonValue array(JsonValue[] values, int size);
    }

    /** A tree made through the public builders, which check again what the reader checked. */
    private static final Tree BUILT = new Tree() {
        @Override
        public JsonValue object(String[] names, JsonValue[] values, int size) {
            JsonObject.Builder members = JsonObject.builder(size);
            for (int i = 0; i < size; i++) {
                members.put(names[i], values[i]);
            }
            return members.build();
        }

        @Override
        public JsonValue array(JsonValue[] values, int size) {
            return JsonArray.of(Arrays.asList(values).subList(0, size));
        }
    };

    /**
     * Consumes the next value, whole, as a tree.
     *
     * @return the value
     * @throws JsonException if a value does not come next, or it is malformed
     */
    public JsonValue readValue() {
        return readValue(BUILT);
    }

    /**
     * Consumes the next value, whole, as a tree whose arrays and objects {@code tree} makes.
     *
     * @param tree makes the arrays and objects
     * @return the value
     * @throws JsonException if a value does not come next, or it is malformed
     */
    public JsonValue readValue(Tree tree) {
        // The arrays and objects being built, innermost last; a frame is reused for the next
        // sibling. Iterative, not recursive: nesting is bounded by MAX_DEPTH and costs no
        // stack frames.
        Frame[] open = new Frame[8];
        int count = 0;
        while (true) {
            // By the token's ordinal: the hottest loop of the client's decoding.
            int token = peeked != NOT_PEEKED ? peeked : doPeek().ordinal();
            JsonValue value;
            if (token == STRING) {
                value = JsonString.of(nextShortCached());
            } else if (token == NAME) {
                if (count == 0) {
                    throw mismatch("expected a value, got " + TOKENS[token].description());
                }
                nextName(); // its value comes next, and is added under names[depth]
                continue;
            } else if (token == BEGIN_OBJECT || token == BEGIN_ARRAY) {
                boolean object = token == BEGIN_OBJECT;
                if (object) {
                    beginObject();
                } else {
                    beginArray();
                }
                if (count == open.length) {
                    open = Arrays.copyOf(open, count * 2);
                }
                if (open[count] == null) {
                    open[count] = new Frame();
                }
                open[count++].start(object);
                continue;
            } else if (token == END_OBJECT || token == END_ARRAY) {
                if (count == 0) {
                    throw mismatch("expected a value, got " + TOKENS[token].description());
                }
                pop();
                value = open[--count].build(tree);
            } else if (token == NUMBER) {
                value = nextNumber();
            } else if (token == BOOLEAN) {
                value = JsonBoolean.of(nextBoolean());
            } else if (token == NULL) {
                nextNull();
                value = JsonNull.INSTANCE;
            } else {
                throw mismatch("expected a value, got " + TOKENS[token].description());
            }
            if (count == 0) {
                return value;
            }
            open[count - 1].add(names[depth], value);
        }
    }

    /**
     * Checks that the value was read whole and only whitespace follows it.
     *
     * @throws JsonException if anything else follows, or the value was not read whole
     */
    public void end() {
        JsonToken token = peek();
        if (token != JsonToken.END_DOCUMENT) {
            throw mismatch("expected the end of the input, got " + token.description());
        }
    }

    /**
     * Returns the JSON path of where the reader is: of the value being read or about to be,
     * or after it.
     *
     * @return a path such as {@code $.a[2].b}; {@code $} at the top level
     */
    public String path() {
        StringBuilder path = new StringBuilder("$");
        for (int d = 1; d <= depth; d++) {
            int scope = scopes[d];
            if (scope == EMPTY_ARRAY || scope == NONEMPTY_ARRAY) {
                path.append('[').append(indices[d]).append(']');
            } else if (names[d] != null) {
                appendName(path, names[d]);
            }
        }
        return path.toString();
    }

    // ---- tokens ----

    private JsonToken doPeek() {
        int p = skipWhitespace(pos);
        switch (scopes[depth]) {
            case EMPTY_ARRAY:
                if (p < limit && buf[p] == ']') {
                    return token(JsonToken.END_ARRAY, p);
                }
                requireMore(p, "unterminated array");
                scopes[depth] = NONEMPTY_ARRAY;
                return valueToken(p);
            case NONEMPTY_ARRAY:
                requireMore(p, "unterminated array");
                if (buf[p] == ']') {
                    return token(JsonToken.END_ARRAY, p);
                }
                if (buf[p] != ',') {
                    throw syntax(p, "expected ',' or ']' after an array element");
                }
                p = skipWhitespace(p + 1);
                requireMore(p, "unterminated array");
                if (buf[p] == ']') {
                    throw syntax(p, "trailing comma: expected a value after ','");
                }
                return valueToken(p);
            case EMPTY_OBJECT:
                if (p < limit && buf[p] == '}') {
                    return token(JsonToken.END_OBJECT, p);
                }
                return nameToken(p, "expected a member name or '}'");
            case NONEMPTY_OBJECT:
                requireMore(p, "unterminated object");
                if (buf[p] == '}') {
                    return token(JsonToken.END_OBJECT, p);
                }
                if (buf[p] != ',') {
                    throw syntax(p, "expected ',' or '}' after an object member");
                }
                p = skipWhitespace(p + 1);
                if (p < limit && buf[p] == '}') {
                    throw syntax(p, "trailing comma: expected a member name after ','");
                }
                return nameToken(p, "expected a member name after ','");
            case DANGLING_NAME:
                requireMore(p, "expected a value after ':'");
                scopes[depth] = NONEMPTY_OBJECT;
                return valueToken(p);
            case EMPTY_DOCUMENT:
                if (p >= limit) {
                    throw syntax(p, "empty input: expected a JSON value");
                }
                scopes[depth] = NONEMPTY_DOCUMENT;
                return valueToken(p);
            default: // NONEMPTY_DOCUMENT
                if (p < limit) {
                    throw syntax(p, "unexpected " + describeByte(p) + " after the JSON value");
                }
                return token(JsonToken.END_DOCUMENT, p);
        }
    }

    private JsonToken token(JsonToken token, int start) {
        pos = start;
        tokenStart = start;
        peeked = token.ordinal();
        return token;
    }

    private void requireMore(int p, String what) {
        if (p >= limit) {
            throw syntax(p, "unexpected end of input: " + what);
        }
    }

    private JsonToken nameToken(int p, String expected) {
        requireMore(p, "unterminated object");
        if (buf[p] == '"') {
            return token(JsonToken.NAME, p);
        }
        if (buf[p] == '\'') {
            throw syntax(p, "single quotes are not JSON: a member name needs double quotes");
        }
        throw syntax(p, expected + ", got " + describeByte(p));
    }

    private JsonToken valueToken(int p) {
        byte c = buf[p];
        switch (c) {
            case '{':
                return token(JsonToken.BEGIN_OBJECT, p);
            case '[':
                return token(JsonToken.BEGIN_ARRAY, p);
            case '"':
                return token(JsonToken.STRING, p);
            case 't':
                expectWord(p, "true");
                return token(JsonToken.BOOLEAN, p);
            case 'f':
                expectWord(p, "false");
                return token(JsonToken.BOOLEAN, p);
            case 'n':
                expectWord(p, "null");
                return token(JsonToken.NULL, p);
            case '-': case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9':
                scanNumber(p);
                return token(JsonToken.NUMBER, p);
            default:
                throw notAValue(p);
        }
    }

    /** Returns the error for what is at {@code p}, where a value should start. */
    private JsonException notAValue(int p) {
        byte c = buf[p];
        if (startsWith(p, "NaN") || startsWith(p, "Infinity")) {
            return syntax(p, "NaN and Infinity are not JSON");
        } else if (c == '+') {
            return syntax(p, "a number may not start with '+'");
        } else if (c == '.') {
            return syntax(p, "a number needs a digit before '.'");
        } else if (c == '\'') {
            return syntax(p, "single quotes are not JSON: a string needs double quotes");
        } else if (startsWith(p, "//") || startsWith(p, "/*")) {
            return syntax(p, "comments are not JSON");
        }
        return syntax(p, "expected a value, got " + describeByte(p));
    }

    private void expectWord(int p, String word) {
        if (!startsWith(p, word)) {
            throw syntax(p, "invalid literal: expected '" + word + "'");
        }
    }

    private boolean startsWith(int p, String ascii) {
        int n = ascii.length();
        if (limit - p < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (buf[p + i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Checks the number at {@code start} and sets {@link #numberEnd}, in one pass. */
    private void scanNumber(int start) {
        int p = start;
        if (buf[p] == '-') {
            p++;
            if (startsWith(p, "Infinity")) {
                throw syntax(start, "NaN and Infinity are not JSON");
            }
            if (p >= limit || !isDigit(buf[p])) {
                throw syntax(p, "expected a digit after '-'");
            }
        }
        if (buf[p] == '0') {
            p++;
            if (p < limit && isDigit(buf[p])) {
                throw syntax(start, "leading zeros are not allowed in a number");
            }
        } else {
            p = skipDigits(p);
        }
        if (p < limit && buf[p] == '.') {
            int digits = ++p;
            p = skipDigits(p);
            if (p == digits) {
                throw syntax(p, "expected a digit after the decimal point");
            }
        }
        if (p < limit && (buf[p] | 0x20) == 'e') {
            p++;
            if (p < limit && (buf[p] == '+' || buf[p] == '-')) {
                p++;
            }
            int digits = p;
            int exponent = 0;
            for (; p < limit && isDigit(buf[p]); p++) {
                if (exponent <= JsonNumber.MAX_EXPONENT) { // stop growing: no overflow
                    exponent = exponent * 10 + (buf[p] - '0');
                }
            }
            if (p == digits) {
                throw syntax(p, "expected a digit in the exponent");
            }
            if (exponent > JsonNumber.MAX_EXPONENT) {
                throw syntax(start, "exponent too large: at most " + JsonNumber.MAX_EXPONENT
                        + " in magnitude");
            }
        }
        if (p - start > JsonNumber.MAX_LENGTH) {
            throw syntax(start, "number too long: more than " + JsonNumber.MAX_LENGTH
                    + " characters");
        }
        numberEnd = p;
    }

    private int skipDigits(int p) {
        while (p < limit && isDigit(buf[p])) {
            p++;
        }
        return p;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private int skipWhitespace(int p) {
        byte[] b = buf;
        int n = limit;
        while (p < n) {
            byte c = b[p];
            if (c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t')) {
                return p;
            }
            p++;
        }
        return p;
    }

    // ---- strings ----

    /** Reads the string whose opening quote is at {@code quote}; leaves pos after it. */
    private String readString(int quote) {
        byte[] b = buf;
        int n = limit;
        int p = quote + 1;
        // Fast path: printable ASCII without escapes, copied in one go; eight bytes a step
        // while none of them ends it or needs decoding.
        while (p + 8 <= n && plainAscii((long) LONGS.get(b, p))) {
            p += 8;
        }
        while (p < n) {
            byte c = b[p];
            if (c == '"') {
                pos = p + 1;
                return new String(b, quote + 1, p - quote - 1, StandardCharsets.ISO_8859_1);
            }
            if (c < 0x20 || c == '\\') { // also every non-ASCII byte, negative here
                break;
            }
            p++;
        }
        return readStringSlow(quote, p);
    }

    /**
     * Reads the string whose opening quote is at {@code quote}, as {@link #readString} does,
     * but gives the same {@code String} for a short one seen before, found in {@code cache}
     * by a hash of its bytes: a document repeats a few member names many times, and a name
     * made once is hashed once (Java caches a string's hash) however often a decoder
     * switches on it afterwards. A slot keeps the string and the
     * offset of its bytes in the input, which stays unchanged while it is read.
     *
     * <p>Most names are under 16 bytes: those are read as two words, which are their key in
     * the cache (the bytes after the quote masked off), so that finding one takes a few
     * word operations and no loop over its bytes.
     */
    private String readCached(int quote, Strings cache) {
        String kept = readShortCached(quote, cache);
        return kept != null ? kept : readLong(quote, cache);
    }

    /**
     * {@link #readCached} of a string under 16 bytes; for another, {@link #readString} when
     * {@code cache} is the values', else null (and nothing consumed), for readLong to read.
     */
    private String readShortCached(int quote, Strings cache) {
        int start = quote + 1;
        long first = word(start);
        long stops = stops(first);
        long second = 0;
        int words = 0;
        if (stops == 0) {
            second = word(start + 8);
            stops = stops(second);
            words = 8;
        }
        if (stops == 0) { // 16 bytes or more
            return cache == valueCache ? readString(quote) : null;
        }
        int end = start + words + (Long.numberOfTrailingZeros(stops) >>> 3);
        if (end >= limit || buf[end] != '"') {
            return readString(quote); // escapes, non-ASCII, errors: read, not kept
        }
        pos = end + 1;
        return readShort(start, end - start, first, second, cache);
    }

    /**
     * The eight bytes at {@code at} as one little-endian word; those past the end of the
     * input are 0, a control character, which stops a scan as the end does.
     */
    private long word(int at) {
        if (at + 8 <= limit) {
            return (long) LONGS.get(buf, at);
        }
        long word = 0;
        for (int i = Math.min(limit, at + 8) - 1; i >= at; i--) {
            word = (word << 8) | (buf[i] & 0xFF);
        }
        return word;
    }

    /**
     * The name of {@code length} bytes (under 16) at {@code start}, whose first sixteen
     * bytes are the words {@code first} and {@code second} (the second unread, 0, for a name
     * under 8), from {@code cache} or made and kept there.
     */
    private String readShort(int start, int length, long first, long second, Strings cache) {
        long k0;
        long k1;
        if (length < 8) {
            k0 = first & ((1L << (length << 3)) - 1); // the bytes from the quote on masked off
            k1 = 0;
        } else {
            k0 = first;
            k1 = second & ((1L << ((length - 8) << 3)) - 1);
        }
        // The top bits of a multiplication, which spreads the key; two slots per hash.
        long hash = (k0 + k1 * 0xC2B2AE3D27D4EB4FL) * 0x9E3779B97F4A7C15L;
        int slot = (int) (hash >>> (64 - cache.bits)) & ~1;
        String cached = cache.find(slot, k0, k1);
        if (cached == null) {
            cached = new String(buf, start, length, StandardCharsets.ISO_8859_1);
            if (cache == nameCache) {
                cached = known(cached); // not values: ids would each cost a look-up
            }
            cache.keep(slot, cached, start, k0, k1);
        }
        return cached;
    }

    /** {@link #readCached} of a name of 16 bytes or more. */
    private String readLong(int quote, Strings cache) {
        byte[] b = buf;
        int n = limit;
        int p = quote + 1;
        int hash = 0;
        while (p < n) {
            byte c = b[p];
            if (c == '"') {
                int start = quote + 1;
                int length = p - start;
                pos = p + 1;
                // Two slots per hash (a pair of names that share one both stay), chosen by
                // the hash's top bits after a multiplication that spreads them.
                int slot = ((hash * 0x9E3779B9) >>> (32 - cache.bits)) & ~1;
                String cached = cache.find(slot, b, start, length);
                if (cached == null) {
                    cached = known(new String(b, start, length, StandardCharsets.ISO_8859_1));
                    cache.keep(slot, cached, start, -1, -1);
                }
                return cached;
            }
            if (c < 0x20 || c == '\\' || p - quote > Strings.LONGEST) {
                return readString(quote); // escapes, non-ASCII and long strings: not kept
            }
            hash = 31 * hash + c;
            p++;
        }
        return readString(quote); // unterminated: reported there
    }

    /**
     * Tells whether eight bytes, read as one little-endian word, are all printable ASCII
     * other than {@code "} and {@code \\}: the usual bit trick, each test setting a byte's
     * top bit where the byte matches.
     */
    private static boolean plainAscii(long word) {
        return stops(word) == 0;
    }

    /**
     * The top bit of every byte of {@code word} (eight bytes, little-endian) that is
     * {@code "}, {@code \\}, below 0x20 or 0x80 and more, each test setting a byte's top
     * bit where the byte matches. A test may also set the bit of a byte above (later than)
     * one that matched, never of one before it: the lowest bit set is the first such byte.
     */
    private static long stops(long word) {
        long quote = word ^ 0x2222222222222222L; // zero where a byte is '"'
        long backslash = word ^ 0x5C5C5C5C5C5C5C5CL; // zero where a byte is '\\'
        long found = ((quote - 0x0101010101010101L) & ~quote)
                | ((backslash - 0x0101010101010101L) & ~backslash)
                | (word - 0x2020202020202020L) // a byte below 0x20 borrows
                | word; // a byte of 0x80 or more
        return found & 0x8080808080808080L;
    }

    /** Reads on from {@code p}, the first byte of the string that needs decoding. */
    private String readStringSlow(int quote, int p) {
        StringBuilder out = chars;
        if (out == null) {
            out = new StringBuilder(Math.max(16, 2 * (p - quote)));
            chars = out;
        }
        out.setLength(0);
        for (int i = quote + 1; i < p; i++) {
            out.append((char) buf[i]);
        }
        while (true) {
            if (p >= limit) {
                throw syntax(p, "unexpected end of input: unterminated string (started at byte "
                        + quote + ")");
            }
            byte c = buf[p];
            if (c == '"') {
                pos = p + 1;
                String value = out.toString();
                if (out.length() > 4096) {
                    chars = null; // keep no large buffer alive between strings
                }
                return value;
            } else if (c == '\\') {
                p = readEscape(p, out);
            } else if (c >= 0x20) {
                out.append((char) c);
                p++;
            } else if (c >= 0) {
                throw syntax(p, "control character " + codePoint(c)
                        + " must be escaped in a string");
            } else {
                p = readUtf8(p, out);
            }
        }
    }

    /** Decodes the escape at {@code p} (a backslash) into {@code out}; returns the offset after. */
    private int readEscape(int p, StringBuilder out) {
        if (p + 1 >= limit) {
            throw syntax(p + 1, "unexpected end of input: unterminated string");
        }
        byte c = buf[p + 1];
        switch (c) {
            case '"', '\\', '/' -> out.append((char) c);
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'u' -> {
                int code = 0;
                for (int i = p + 2; i < p + 6; i++) {
                    int digit = i < limit ? hexValue(buf[i]) : -1;
                    if (digit < 0) {
                        throw syntax(p, "invalid \\u escape: expected four hex digits");
                    }
                    code = (code << 4) | digit;
                }
                // A surrogate, paired or not, is kept as its char: a pair of escapes makes
                // the one character in Java's UTF-16, and a lone one keeps the text as sent.
                out.append((char) code);
                return p + 6;
            }
            default -> throw syntax(p, "invalid escape '\\" + (c >= 0x20 && c < 0x7F
                    ? String.valueOf((char) c) : String.format("x%02X", c & 0xFF)) + "'");
        }
        return p + 2;
    }

    private static int hexValue(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int lower = c | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    /** Decodes and checks the UTF-8 sequence at {@code p} into {@code out}. */
    private int readUtf8(int p, StringBuilder out) {
        int lead = buf[p] & 0xFF;
        int more;
        int code;
        if (lead < 0xC0) {
            throw syntax(p, String.format("invalid UTF-8: unexpected continuation byte 0x%02X",
                    lead));
        } else if (lead < 0xC2 || lead > 0xF4) {
            throw syntax(p, String.format("invalid UTF-8: byte 0x%02X never appears in UTF-8",
                    lead));
        } else if (lead < 0xE0) {
            more = 1;
            code = lead & 0x1F;
        } else if (lead < 0xF0) {
            more = 2;
            code = lead & 0x0F;
        } else {
            more = 3;
            code = lead & 0x07;
        }
        for (int i = p + 1; i <= p + more; i++) {
            if (i >= limit) {
                throw syntax(p, "invalid UTF-8: truncated sequence at the end of the input");
            }
            int next = buf[i] & 0xFF;
            if ((next & 0xC0) != 0x80) {
                throw syntax(p, String.format(
                        "invalid UTF-8: expected a continuation byte, got 0x%02X", next));
            }
            code = (code << 6) | (next & 0x3F);
        }
        if ((more == 2 && code < 0x800) || (more == 3 && code < 0x10000)) {
            throw syntax(p, "invalid UTF-8: overlong encoding of " + codePoint(code));
        }
        if (code >= 0xD800 && code <= 0xDFFF) {
            throw syntax(p, "invalid UTF-8: encoded surrogate " + codePoint(code));
        }
        if (code > 0x10FFFF) {
            throw syntax(p, "invalid UTF-8: code point above U+10FFFF");
        }
        if (more < 3) {
            out.append((char) code);
        } else {
            out.append(Character.highSurrogate(code)).append(Character.lowSurrogate(code));
        }
        return p + more + 1;
    }

    private void checkSurrogates(String json) {
        int offset = 0; // in UTF-8 bytes, as getBytes wrote them
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < json.length()
                    && Character.isLowSurrogate(json.charAt(i + 1))) {
                offset += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                throw syntax(offset, "unpaired surrogate " + codePoint(c)
                        + " in the text: it has no UTF-8 form");
            } else {
                offset += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
        }
    }

    // ---- scopes ----

    private void expect(JsonToken wanted) {
        JsonToken token = peek();
        if (token != wanted) {
            throw mismatch("expected " + wanted.description() + ", got " + token.description());
        }
    }

    private void push(int scope) {
        if (depth == MAX_DEPTH) {
            throw syntax(tokenStart, "nested too deeply: more than " + MAX_DEPTH
                    + " arrays and objects");
        }
        depth++;
        if (depth == scopes.length) {
            int length = Math.min(2 * depth, MAX_DEPTH + 1);
            scopes = Arrays.copyOf(scopes, length);
            indices = Arrays.copyOf(indices, length);
            names = Arrays.copyOf(names, length);
            seen = Arrays.copyOf(seen, length);
        }
        scopes[depth] = scope;
        indices[depth] = 0;
        names[depth] = null;
        pos = tokenStart + 1;
        peeked = NOT_PEEKED;
    }

    private void pop() {
        depth--;
        pos = tokenStart + 1;
        peeked = NOT_PEEKED;
        afterValue();
    }

    private void afterValue() {
        if (scopes[depth] == NONEMPTY_ARRAY) {
            indices[depth]++;
        }
    }

    // ---- errors ----

    private JsonException syntax(int offset, String message) {
        int[] lineColumn = lineAndColumn(offset);
        return new JsonException(message, offset, lineColumn[0], lineColumn[1]);
    }

    private JsonException mismatch(String message) {
        int[] lineColumn = lineAndColumn(tokenStart);
        return new JsonException(message, path(), tokenStart, lineColumn[0], lineColumn[1]);
    }

    /** Counts lines and columns only when an error needs them, keeping the hot path lean. */
    private int[] lineAndColumn(int offset) {
        int line = 1;
        int lineStart = Math.min(bomLength, offset);
        for (int i = lineStart; i < offset; i++) {
            byte c = buf[i];
            if (c == '\n' || (c == '\r' && (i + 1 >= limit || buf[i + 1] != '\n'))) {
                line++;
                lineStart = i + 1;
            }
        }
        int column = 1;
        for (int i = lineStart; i < offset; i++) {
            if ((buf[i] & 0xC0) != 0x80) { // count characters, not continuation bytes
                column++;
            }
        }
        return new int[] {line, column};
    }

    private String describeByte(int p) {
        int c = buf[p] & 0xFF;
        if (c >= 0x21 && c < 0x7F) {
            return "'" + (char) c + "'";
        }
        return String.format("byte 0x%02X", c);
    }

    private static String codePoint(int code) {
        return String.format("U+%04X", code);
    }

    private static String clip(String name) {
        return name.length() <= 40 ? name : name.substring(0, 40) + "...";
    }

    private static void appendName(StringBuilder path, String name) {
        boolean plain = !name.isEmpty();
        for (int i = 0; plain && i < name.length(); i++) {
            char c = name.charAt(i);
            plain = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                    || (i > 0 && c >= '0' && c <= '9');
        }
        if (plain) {
            path.append('.').append(name);
        } else {
            path.append('[').append(JsonWriter.quote(name)).append(']');
        }
    }

    /**
     * An array or object that {@link #readValue(Tree)} is building. Its members are gathered
     * first, so that the object is made at its final size.
     */
    private static final class Frame {
        private boolean object;
        private int size;
        private String[] names = new String[8];
        private JsonValue[] values = new JsonValue[8];

        void start(boolean isObject) {
            object = isObject;
            size = 0;
        }

        void add(String name, JsonValue value) {
            if (size == values.length) {
                names = Arrays.copyOf(names, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            names[size] = name;
            values[size++] = value;
        }

        JsonValue build(Tree tree) {
            JsonValue built = object ? tree.object(names, values, size) : tree.array(values, size);
            // The tree owns those arrays now. The next sibling's are made at this one's size,
            // which siblings mostly share (records of one type), so that they need no copy.
            int capacity = Math.max(size, 4);
            names = new String[capacity];
            values = new JsonValue[capacity];
            return built;
        }
    }

    /**
     * The names an object has had, for refusing duplicates: up to {@link #FEW} in a small
     * open-addressing table (names are mostly the reader's own cached strings, whose hash is
     * made once), past that in a HashSet (whose bins of colliding names become trees), so
     * that time stays linear whatever names an input crafts.
     */
    private static final class NameSet {
        private static final int FEW = 32;

        private final String[] table = new String[2 * FEW]; // at most half full
        private final int[] filled = new int[FEW]; // the slots in use, for clearing
        private int count;
        private HashSet<String> many;

        boolean add(String name) {
            if (count < FEW) {
                int mask = table.length - 1;
                int h = name.hashCode();
                for (int i = (h ^ (h >>> 16)) & mask; ; i = (i + 1) & mask) {
                    String there = table[i];
                    if (there == null) {
                        table[i] = name;
                        filled[count++] = i;
                        return true;
                    }
                    if (there.equals(name)) {
                        return false;
                    }
                }
            }
            if (many == null) {
                many = new HashSet<>();
                for (int i = 0; i < FEW; i++) {
                    many.add(table[filled[i]]);
                }
            }
            if (!many.add(name)) {
                return false;
            }
            count++;
            return true;
        }

        void clear() {
            for (int i = 0, n = Math.min(count, FEW); i < n; i++) {
                table[filled[i]] = null;
            }
            many = null; // a large object is rare: its set is not kept for the next one
            count = 0;
        }
    }

    /**
     * Strings read before, two slots per hash, each with the offset of its bytes in the
     * input (which stays unchanged while it is read).
     */
    private static final class Strings {
        static final int LONGEST = 48; // in bytes: longer strings are rarely repeated

        // 2^bits slots: 512 at most, fewer for a short input (which cannot hold as many
        // strings), so that the reader of a small answer does not clear 16 KB of tables.
        final int bits;
        final String[] strings;
        final int[] offsets;
        // A string kept by its words (readShort): per slot, the two words side by side (a
        // pair of slots in half a cache line). Their bytes up to the string's length are
        // its own and none is 0, the rest are 0, so the words alone tell its length. A
        // string kept by its offset alone (readLong) has -1 twice, which no words are (a
        // byte of 0xFF is never plain).
        final long[] keys;

        Strings(int inputLength) {
            // One slot per 16 bytes of input, between 16 and 512.
            int wanted = Math.max(16, Math.min(512, inputLength >>> 4));
            bits = 32 - Integer.numberOfLeadingZeros(wanted - 1);
            strings = new String[1 << bits];
            offsets = new int[1 << bits];
            keys = new long[2 << bits];
        }

        /** The string kept in the pair of slots at {@code slot} with these bytes, or null. */
        String find(int slot, byte[] input, int start, int length) {
            for (int i = slot; i <= slot + 1; i++) {
                String kept = strings[i];
                if (kept != null && kept.length() == length
                        && same(input, offsets[i], start, length)) {
                    return kept;
                }
            }
            return null;
        }

        /** The string kept in the pair of slots at {@code slot} with these words, or null. */
        String find(int slot, long first, long second) {
            long[] k = keys;
            for (int i = slot; i <= slot + 1; i++) {
                if (k[2 * i] == first && k[2 * i + 1] == second) {
                    return strings[i];
                }
            }
            return null;
        }

        /**
         * Keeps {@code s} in the pair at {@code slot}: in a free slot, else in the first;
         * with its words (-1 twice for none).
         */
        void keep(int slot, String s, int start, long first, long second) {
            int i = strings[slot] == null || strings[slot + 1] != null ? slot : slot + 1;
            strings[i] = s;
            offsets[i] = start;
            keys[2 * i] = first;
            keys[2 * i + 1] = second;
        }

        private static boolean same(byte[] input, int a, int b, int length) {
            int i = 0;
            for (; i + 8 <= length; i += 8) { // eight bytes a step
                if ((long) LONGS.get(input, a + i) != (long) LONGS.get(input, b + i)) {
                    return false;
                }
            }
            for (; i < length; i++) {
                if (input[a + i] != input[b + i]) {
                    return false;
                }
            }
            return true;
        }
    }
}
