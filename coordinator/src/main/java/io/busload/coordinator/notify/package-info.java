/**
 * Telling people what changed: a confirmed change point, a device outside its cohort, a failed sweep, an agent gone
 * quiet, the device back, and a certificate near its expiry, sent to the Slack channels, signed webhooks and mailboxes that operators register.
 * Nightly sweeps exist so that someone learns the next morning that a driver update cost 8% or that one card is sick;
 * the REST API and the dashboard only show it to whoever looks.
 *
 * <p>Each event has a stable key claimed in the store before anything is sent, so one change makes one message per
 * target even when two coordinators see it or the leader changes mid-way; deliveries are rows in the store, retried
 * with backoff from a worker thread, and every attempt is kept in the delivery log. Secrets of a target (webhook
 * URLs, HMAC keys, SMTP passwords) are stored and used, never shown back and never logged: every text that leaves
 * here (log line, delivery log, REST answer) is scrubbed of them.
 */
package io.busload.coordinator.notify;
