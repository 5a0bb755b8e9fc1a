package io.busload.coordinator.store;

import java.time.Instant;
import java.util.UUID;

/**
 * A result as stored: its id and time (the paging key) and the whole {@code KernelResult} JSON as received,
 * so a reader gets back exactly what the agent measured.
 */
public record StoredResult(UUID id, Instant measuredAt, String json) {}
