/**
 * The one place where Busload relies on Vert.x beyond its public API and its cluster-manager SPI: Vert.x offers no
 * public way from a {@code Vertx} to the cluster manager it was built with ({@link VertxInternals}), and no hook
 * where its clustered event bus refuses a frame ({@link VertxWire}: the implementation's class names and error
 * texts). Each class has a test ({@code VertxInternalsTest}, {@code VertxWireTest}) that fails with what a Vert.x
 * upgrade changed. Nothing else in the tree imports {@code io.vertx.core.internal} or names a Vert.x {@code impl}
 * class.
 */
package io.busload.protocol.compat.vertx;
