package dev.inspection.conformance;

/** A step did not go as its scenario says (or the scenario is malformed). */
final class RunnerError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RunnerError(String message) {
        super(message);
    }
}
