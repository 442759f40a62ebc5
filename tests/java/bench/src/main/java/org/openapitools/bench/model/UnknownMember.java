package org.openapitools.bench.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * What openapi-generator's classes name and it does not write: the class of an open union's
 * unknown member (a schema that is `not` the known tags). Its oneOf reader tries every
 * member and wants exactly one to fit, so a member that took any object would make every
 * known one ambiguous: this one fits none. That is what these classes can do with a tag the
 * spec does not list (refuse it), where the generated client keeps it.
 */
public final class UnknownMember {
    private UnknownMember() {
    }

    /**
     * Never made.
     *
     * @param value the object
     * @return nothing
     */
    @JsonCreator
    public static UnknownMember of(Map<String, Object> value) {
        throw new IllegalArgumentException("openapi-generator's classes hold no unknown union member");
    }
}
