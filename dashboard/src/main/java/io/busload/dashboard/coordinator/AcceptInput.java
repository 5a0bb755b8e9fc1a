package io.busload.dashboard.coordinator;

import java.time.Instant;

/**
 * An accepted change as the dashboard posts it ({@code POST /api/accepted-changes}): the baseline of the device's
 * series of this kernel case restarts at {@code from} (null: now); {@code by} is the logged-in user.
 */
public record AcceptInput(String device, String kernel, String params, Instant from, String why, String by) {}
