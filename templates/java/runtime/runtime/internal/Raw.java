package {{ package }}.runtime.internal;

import java.net.http.HttpHeaders;

/** A success answer: its status, headers and body (read whole; empty for a download). */
final class Raw {
    final int status;
    final HttpHeaders headers;
    final byte[] body;

    Raw(int status, HttpHeaders headers, byte[] body) {
        this.status = status;
        this.headers = headers;
        this.body = body;
    }
}
