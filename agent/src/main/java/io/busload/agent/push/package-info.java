/**
 * The client side of {@code ./busload push}: sends the files {@code ./busload run} writes to a
 * coordinator's REST API from hosts that cannot join the cluster (air-gapped GPU hosts, one-off cloud instances, CI
 * jobs). Plain HTTP with the JDK's client and the API token; the coordinator does every check, so what it refuses
 * comes back here as it said it, with the line and field.
 */
package io.busload.agent.push;
