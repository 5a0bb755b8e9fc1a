/**
 * The one place where Busload reaches past Vert.x's public API: Vert.x offers no public way from a {@code Vertx} to
 * the cluster manager it was built with, and the fleet's repairs and its coordinator-presence check need that
 * manager. Everything here is checked by {@code VertxInternalsTest}, which names what a Vert.x upgrade changed.
 * Nothing else in the tree imports {@code io.vertx.core.internal} or an {@code impl} package of Vert.x.
 */
package io.busload.protocol.compat.vertx;
