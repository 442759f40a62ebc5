package dev.inspection.conformance;

import dev.inspection.client.runtime.JsonValue;

/** What a call gave: a result (null: none), an error, or for a walk both. */
record Outcome(JsonValue result, Throwable error) {
    static Outcome of(JsonValue result) {
        return new Outcome(result, null);
    }

    static Outcome failed(Throwable error) {
        return new Outcome(null, error);
    }
}
