package {{ package }}.runtime;

import java.util.List;

/** A request broke documented limits, and nothing was sent: every violation, in the order found. */
public final class ValidationException extends ClientException {
    private static final long serialVersionUID = 1L;

    /** Kept as given; a list is not serializable in general, hence transient. */
    private final transient List<Violation> violations;

    /**
     * The exception for {@code violations}.
     *
     * @param violations every violation, at least one
     */
    public ValidationException(List<Violation> violations) {
        super(message(violations));
        this.violations = List.copyOf(violations);
    }

    private static String message(List<Violation> violations) {
        StringBuilder text = new StringBuilder("invalid request: ");
        for (int i = 0; i < violations.size(); i++) {
            text.append(i == 0 ? "" : "; ").append(violations.get(i));
        }
        return text.toString();
    }

    /**
     * Every broken limit, in the order found.
     *
     * @return the violations, unmodifiable
     */
    public List<Violation> violations() {
        return violations;
    }

    @Override
    public String kind() {
        return "validation";
    }
}
