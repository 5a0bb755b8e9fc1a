/**
 * The fleet's public key infrastructure, in one place for every user of it: {@code ./busload certs} and
 * {@code ./busload up} issue with it, the simulator gives each of a thousand virtual agents a certificate of its own
 * with it, and the tests make their fleets with it, so that what the tests check is what operators get.
 *
 * <p>It lives in {@code protocol} because the certificates' shape (three CAs, the role in the subject's OU, who
 * trusts whom) is part of the fleet's contract that {@code cluster.FleetTls} and the bridge check.
 */
package io.busload.protocol.pki;
