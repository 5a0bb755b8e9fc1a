package io.busload.dashboard.coordinator;

/** A kernel with parameters that has a valid result ({@code GET /api/kernels}); params as {@code size=1024;stride=4}. */
public record KernelChoice(String kernel, String params) {}
