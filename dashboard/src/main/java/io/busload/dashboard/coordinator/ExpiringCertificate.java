package io.busload.dashboard.coordinator;

import java.time.Instant;

/**
 * A certificate of the fleet within the warning's days of its expiry ({@code GET /api/certificates}): the
 * coordinator's own, a CA's, or an agent's that the coordinator's bridge has seen; {@code daysLeft} is negative once
 * it has expired.
 */
public record ExpiringCertificate(String role, String subject, String serial, Instant notAfter, long daysLeft) {}
