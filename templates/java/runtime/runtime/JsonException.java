package {{ package }}.runtime;

/**
 * JSON that is malformed, or that does not fit what was expected of it.
 *
 * <p>A syntax error carries where in the input it was found: {@link #offset()} (in bytes),
 * {@link #line()} and {@link #column()}. A value of the wrong shape carries the JSON path of
 * that value ({@link #path()}, such as {@code $.items[3].name}), and its position too when it
 * was found while reading input.
 */
public final class JsonException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** The problem alone, without the position or path that {@link #getMessage()} adds. */
    private final String reason;
    /** The byte offset into the input, or -1. */
    private final long offset;
    /** The line, from 1, or -1. */
    private final int line;
    /** The column, from 1, or -1. */
    private final int column;
    /** The JSON path, or "" when not known. */
    private final String path;

    /**
     * Creates the exception for a syntax error in the input. The message reads, for example,
     * {@code invalid JSON at line 3, column 14 (byte 52): expected ':' after a member name}.
     *
     * @param message the problem, such as {@code expected ':' after a member name}
     * @param offset the byte offset into the input where the problem is, from 0
     * @param line the line of that byte, from 1
     * @param column the column of that byte on its line, from 1, counted in characters
     */
    public JsonException(String message, long offset, int line, int column) {
        super("invalid JSON at line " + line + ", column " + column + " (byte " + offset + "): "
                + message);
        this.reason = message;
        this.offset = offset;
        this.line = line;
        this.column = column;
        this.path = "";
    }

    /**
     * Creates the exception for a value that does not fit, found at a JSON path but at no
     * known position in the input. The message reads, for example,
     * {@code $.items[3].name: expected a string, got a number}.
     *
     * @param message the problem, such as {@code expected a string, got a number}
     * @param path the JSON path of the value, such as {@code $.items[3].name}, or {@code ""}
     *     when it is not known
     */
    public JsonException(String message, String path) {
        super(path.isEmpty() ? message : path + ": " + message);
        this.reason = message;
        this.offset = -1;
        this.line = -1;
        this.column = -1;
        this.path = path;
    }

    /**
     * Creates the exception for a value that does not fit, found at a JSON path and at a
     * position in the input. The message reads, for example,
     * {@code $.a: expected a string, got a number (line 1, column 6, byte 5)}.
     *
     * @param message the problem, such as {@code expected a string, got a number}
     * @param path the JSON path of the value, such as {@code $.items[3].name}
     * @param offset the byte offset into the input where the value starts, from 0
     * @param line the line of that byte, from 1
     * @param column the column of that byte on its line, from 1, counted in characters
     */
    public JsonException(String message, String path, long offset, int line, int column) {
        super((path.isEmpty() ? "" : path + ": ") + message + " (line " + line + ", column "
                + column + ", byte " + offset + ")");
        this.reason = message;
        this.offset = offset;
        this.line = line;
        this.column = column;
        this.path = path;
    }

    /**
     * Returns the problem alone, without the position or path that {@link #getMessage()} adds.
     *
     * @return the problem, such as {@code expected ':' after a member name}
     */
    public String reason() {
        return reason;
    }

    /**
     * Returns the byte offset into the input where the problem is.
     *
     * @return the offset from 0, or -1 when the problem was not found in input
     */
    public long offset() {
        return offset;
    }

    /**
     * Returns the line where the problem is.
     *
     * @return the line from 1, or -1 when the problem was not found in input
     */
    public int line() {
        return line;
    }

    /**
     * Returns the column where the problem is, counted in characters (code points).
     *
     * @return the column from 1, or -1 when the problem was not found in input
     */
    public int column() {
        return column;
    }

    /**
     * Returns the JSON path of the value that does not fit.
     *
     * @return a path such as {@code $.items[3].name}, {@code "$"} for the root, or {@code ""}
     *     when it is not known (as for syntax errors)
     */
    public String path() {
        return path;
    }

    @Override
    public String kind() {
        return "decode";
    }
}
