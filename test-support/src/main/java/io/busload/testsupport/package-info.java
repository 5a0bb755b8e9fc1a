/**
 * Fixtures the tests of several modules share, so that each is written once: a cluster on loopback that closes what
 * joined it,
 * certificates from the real {@code ./busload certs}, a TLS peer holding a member's stores, a clock a test sets, free
 * ports, what a class logs. It exists so that a fixture is written once and
 * fixed once, as Vert.x and Hazelcast keep theirs in testsuite artifacts; modules depend on it with test scope only,
 * so nothing here reaches a bundle.
 *
 * <p>It sits above {@code protocol} (its cluster settings), so protocol's own tests keep their fixtures.
 */
package io.busload.testsupport;
