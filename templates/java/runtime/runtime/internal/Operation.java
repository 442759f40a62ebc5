package {{ package }}.runtime.internal;

/**
 * What the runtime knows of one operation, written by the generator: its names, how it is
 * sent and how its answer is read. Not part of the client's API.
 */
public final class Operation {
    final String name;
    final String method;
    final String template;
    final String accept;
    final boolean poll;
    final boolean anonymous;
    final String hint;

    /**
     * Describes an operation.
     *
     * @param name the spec's name ({@code get_unit})
     * @param method the HTTP method
     * @param template the path as the spec writes it
     * @param accept the media type asked for, or {@code null} for the interface's
     * @param poll whether a 202 is asked again
     * @param anonymous whether it is sent without credentials (a login)
     * @param hint what an error message adds (an operation for managers only), or {@code null}
     */
    public Operation(String name, String method, String template, String accept, boolean poll, boolean anonymous,
            String hint) {
        this.name = name;
        this.method = method;
        this.template = template;
        this.accept = accept;
        this.poll = poll;
        this.anonymous = anonymous;
        this.hint = hint;
    }

    /**
     * The same operation asking for another media type (an inspection's PDF).
     *
     * @param mediaType the media type
     * @param polls whether a 202 is asked again
     * @return the operation
     */
    public Operation accepting(String mediaType, boolean polls) {
        return new Operation(name, method, template, mediaType, polls, anonymous, hint);
    }

    @Override
    public String toString() {
        return method + " " + template;
    }
}
