package io.busload.dashboard.coordinator;

import java.time.Instant;

/** One row of the delivery log ({@code GET /api/notifications/deliveries}): one event told to one target. */
public record NotificationDelivery(String id, String targetId, String targetName, String eventKey, String kind,
    String severity, String title, String status, int attempts, Instant nextAttemptAt, Integer lastCode,
    String lastReply, String lastError, Instant createdAt, Instant updatedAt) {}
