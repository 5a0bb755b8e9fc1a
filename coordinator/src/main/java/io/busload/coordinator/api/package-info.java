/**
 * The coordinator's REST API (docs/contract.md, REST), the only way the dashboard and scripts reach the
 * store.
 *
 * <p>Bad input is answered with RFC 9457 problem details naming the offending field, and is refused
 * before anything is stored. Results are streamed page by page, so a large export does not sit whole in
 * memory.
 */
package io.busload.coordinator.api;
