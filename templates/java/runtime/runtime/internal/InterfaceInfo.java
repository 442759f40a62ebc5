package {{ package }}.runtime.internal;

import {{ package }}.runtime.ClientOptions.RateLimit;

/**
 * What the runtime needs to know of an interface, written by the generator: its documented
 * quota, the status and header of its rate limit, where its errors hold their message, the
 * {@code Accept} it sends by default.
 */
public final class InterfaceInfo {
    final String name;
    final RateLimit rateLimit;
    final int limitStatus;
    final String retryAfterHeader;
    final String errorField;
    final String defaultAccept;

    /**
     * Describes an interface.
     *
     * @param name the interface's name ({@code v3})
     * @param rateLimit the documented quota, or {@code null}
     * @param limitStatus the status a refused request gets (429)
     * @param retryAfterHeader the header telling how long to wait
     * @param errorField the error body's message property
     * @param defaultAccept the {@code Accept} sent unless another is asked for
     */
    public InterfaceInfo(String name, RateLimit rateLimit, int limitStatus, String retryAfterHeader, String errorField,
            String defaultAccept) {
        this.name = name;
        this.rateLimit = rateLimit;
        this.limitStatus = limitStatus;
        this.retryAfterHeader = retryAfterHeader;
        this.errorField = errorField;
        this.defaultAccept = defaultAccept;
    }
}
