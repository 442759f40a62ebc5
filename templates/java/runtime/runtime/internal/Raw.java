package {{ package }}.runtime.internal;

import java.net.URI;
import java.net.http.HttpHeaders;

/** A success answer: its status, headers, body (read whole) and the URL that gave it. */
final class Raw {
    final int status;
    final HttpHeaders headers;
    final byte[] body;
    final URI url;

    Raw(int status, HttpHeaders headers, byte[] body, URI url) {
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.url = url;
    }
}
