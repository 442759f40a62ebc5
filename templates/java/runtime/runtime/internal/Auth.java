package {{ package }}.runtime.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import {{ package }}.runtime.ConfigException;
import {{ package }}.runtime.JsonValue;

/**
 * How requests are authenticated: fixed headers (a key pair), or a token a login answers,
 * sent as {@code <header>: <scheme> <token>} and renewed on a 401. Written by the generator.
 */
public final class Auth {
    final List<Map.Entry<String, String>> headers;
    final List<String> secrets;
    final Supplier<Call> login;
    final TokenReader token;
    final String tokenPath;
    final String tokenHeader;
    final String tokenScheme;

    /** Reads the token out of a login's answer (throwing the runtime's JSON exception). */
    @FunctionalInterface
    public interface TokenReader {
        /**
         * The token.
         *
         * @param answer the login's answer
         * @return the token
         */
        String read(JsonValue answer);
    }

    private Auth(List<Map.Entry<String, String>> headers, List<String> secrets, Supplier<Call> login,
            TokenReader token, String tokenPath, String tokenHeader, String tokenScheme) {
        this.headers = headers;
        this.secrets = secrets;
        this.login = login;
        this.token = token;
        this.tokenPath = tokenPath;
        this.tokenHeader = tokenHeader;
        this.tokenScheme = tokenScheme;
    }

    /**
     * Headers sent on every request.
     *
     * @param headers the name and value of each
     * @param secrets the values never shown (the key secret)
     * @return the auth
     * @throws ConfigException for a value a header cannot carry, naming the header only
     */
    public static Auth headers(List<Map.Entry<String, String>> headers, List<String> secrets) {
        for (Map.Entry<String, String> h : headers) {
            if (h.getValue() == null || !Secrets.headerSafe(h.getValue())) {
                throw new ConfigException("the " + h.getKey() + " header cannot carry this credential: it must be "
                    + "visible ASCII, spaces and tabs (the value is not shown)");
            }
        }
        return new Auth(List.copyOf(headers), List.copyOf(secrets), null, null, null, null, null);
    }

    /**
     * A token login.
     *
     * @param login builds the login request
     * @param token reads the token from its answer
     * @param tokenPath the token's JSON path in the answer, for errors
     * @param header the header the token is sent in
     * @param scheme the scheme before it
     * @param secrets the values never shown (the password)
     * @return the auth
     */
    public static Auth token(Supplier<Call> login, TokenReader token, String tokenPath, String header, String scheme,
            List<String> secrets) {
        return new Auth(List.of(), new ArrayList<>(secrets), login, token, tokenPath, header, scheme);
    }

    boolean logsIn() {
        return login != null;
    }
}
