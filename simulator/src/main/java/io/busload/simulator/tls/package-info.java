/**
 * A fleet's certificates made in-process (docs/design/fleet-transport.md), so that
 * {@code simulate fleet --transport bridge} can give each of a thousand virtual agents a certificate of its own:
 * {@code ./busload certs} runs keytool, a JVM per step, which takes minutes per hundred agents. The certificates
 * have the structure and extensions {@code ./busload certs} gives them, so that the coordinator's {@code FleetTls}
 * and {@code AgentBridge} take them unchanged; the production issuing stays keytool's.
 */
package io.busload.simulator.tls;
