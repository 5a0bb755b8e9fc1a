/**
 * What the coordinator knows about the fleet right now, and the per-device run queues.
 *
 * <p>Agents come and go; the coordinator must ask nothing of an offline agent and give each device one
 * benchmark at a time (docs/design/invariants.md#offline-agents, #one-run-per-device). That state is confined to the
 * coordinator verticle's
 * event loop, so it needs no locks; whatever must survive a restart goes to the store first.
 */
package io.busload.coordinator.fleet;
