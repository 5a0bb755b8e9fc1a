/**
 * The coordinator's REST API (docs/contract.md, REST), the only way the dashboard and scripts reach the store.
 *
 * <p>One class per resource, each an {@link io.busload.coordinator.api.ApiResource} with a router of its own mounted
 * under its path: {@code FleetResource} (agents, devices), {@code SweepResource}, {@code RunResource},
 * {@code ResultResource} (results and the views' reads), {@code ScheduleResource}, {@code AnalysisResource}
 * (comparisons, regressions), {@code PushResource} (pushed files; it records the name of the token the
 * check accepted) and {@code TokenResource} (the API tokens themselves, for admins).
 * {@link io.busload.coordinator.api.RestApi} puts them together behind {@code ApiAuth}, which gives every route one
 * {@link io.busload.coordinator.api.Scope} of a token from {@link io.busload.coordinator.api.ApiTokens}, with the
 * OpenAPI document and the metrics. Every resource is given what it uses in its constructor.
 *
 * <p>Parameters are read and bounded in one place ({@code Requests}); bad input is answered with RFC 9457 problem
 * details naming the offending field ({@code Replies}), and is refused before anything is stored. Results are
 * streamed page by page, so a large export does not sit whole in memory.
 */
package io.busload.coordinator.api;
