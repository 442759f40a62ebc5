package dev.inspection.client.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The spec's sensitive properties never reach a string form; their JSON is what is sent. */
class SecretsTest {
    @Test
    void aPasswordIsNeverShownButIsSent() {
        Credentials credentials = Credentials.builder().username("dana").password("hunter2-secret").build();
        assertFalse(credentials.toString().contains("hunter2-secret"), credentials.toString());
        assertTrue(credentials.toString().contains("password=***"), credentials.toString());
        assertTrue(credentials.toJson().contains("\"password\":\"hunter2-secret\""));
    }

    @Test
    void aTokenReadFromTheLoginAnswerIsNeverShown() {
        AuthenticateResponse answer = AuthenticateResponse.fromJson(
                "{\"auth_token\": \"eyJ.secret.token\", \"user\": {\"id\": 7, \"username\": \"dana\"}}");
        assertEquals("eyJ.secret.token", answer.authToken());
        assertFalse(answer.toString().contains("eyJ.secret.token"), answer.toString());
    }
}
