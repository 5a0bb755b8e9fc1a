/**
 * The one place where Busload relies on Vert.x beyond its public API and its cluster-manager SPI: Vert.x offers no
 * public way from a {@code Vertx} to the cluster manager it was built with ({@link VertxInternals}), no hook
 * where its clustered event bus refuses a frame ({@link VertxWire}: the implementation's class names and error
 * texts), and no way to give its clustered event bus renewed certificates ({@link EventBusTls}: two private fields,
 * read by reflection here only). Each class has a test ({@code VertxInternalsTest}, {@code VertxWireTest},
 * {@code EventBusTlsTest}) that fails with what a Vert.x upgrade changed. Nothing else in the tree imports
 * {@code io.vertx.core.internal}, names a Vert.x {@code impl} class or reads Vert.x's fields by reflection.
 */
package io.busload.protocol.compat.vertx;
