package io.busload.protocol.compat.vertx;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.ServerSSLOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * New certificates for the TLS of a running clustered event bus. Vert.x builds the clustered event bus's server
 * (other members connect to it) and client (it connects to them) from {@code EventBusOptions} when the member starts,
 * and its public API offers no way to change them later. The two objects themselves are a public {@link NetServer}
 * and {@link NetClient}, whose {@code updateSSLOptions} applies new options to new handshakes and keeps open
 * connections; but Vert.x keeps them in private fields of {@value #EVENT_BUS_CLASS}. So this reads those two fields,
 * each by name and checked type, and calls only the public {@code updateSSLOptions} on what it finds.
 * {@code EventBusTlsTest} fails, naming the class and the field, when a Vert.x upgrade moves them; {@link #update}
 * fails the same way at run time, and never does nothing silently.
 */
public final class EventBusTls {
  /** The clustered event bus's implementation class ({@code Vertx.eventBus()} of a clustered Vert.x). */
  static final String EVENT_BUS_CLASS = "io.vertx.core.eventbus.impl.clustered.ClusteredEventBus";
  /** The field of {@link #EVENT_BUS_CLASS} holding the server other members connect to: set when the bus starts. */
  static final String SERVER_FIELD = "server";
  /** The field of {@link #EVENT_BUS_CLASS} holding the client this member connects to the others with. */
  static final String CLIENT_FIELD = "client";

  private EventBusTls() {}

  /**
   * Hands {@code server} and {@code client} options to the running event bus of clustered {@code vertx}: the next
   * member that connects, and the next connection this member makes, handshake with them; connections already open
   * are kept. Succeeds once both took them; fails naming what is wrong when {@code vertx} is not clustered or
   * Vert.x's internals are not as this class expects.
   */
  public static Future<Void> update(Vertx vertx, ServerSSLOptions server, ClientSSLOptions client) {
    NetServer netServer;
    NetClient netClient;
    try {
      netServer = server(vertx);
      netClient = client(vertx);
    } catch (IllegalStateException e) {
      return Future.failedFuture(e);
    }
    return Future.all(netServer.updateSSLOptions(server), netClient.updateSSLOptions(client)).mapEmpty();
  }

  /** The event bus's server of clustered {@code vertx}. */
  static NetServer server(Vertx vertx) {
    return read(vertx, SERVER_FIELD, NetServer.class);
  }

  /** The event bus's client of clustered {@code vertx}. */
  static NetClient client(Vertx vertx) {
    return read(vertx, CLIENT_FIELD, NetClient.class);
  }

  private static <T> T read(Vertx vertx, String name, Class<T> type) {
    Object bus = vertx.eventBus();
    if (!bus.getClass().getName().equals(EVENT_BUS_CLASS)) {
      throw new IllegalStateException(VertxInternals.clusterManager(vertx).isPresent()
          ? "Vert.x changed: the event bus of a clustered Vert.x is " + bus.getClass().getName() + ", not "
              + EVENT_BUS_CLASS + "; EventBusTls must follow where its server and client went"
          : "the event bus is " + bus.getClass().getName() + ", not " + EVENT_BUS_CLASS + ": only a clustered "
              + "Vert.x has an event-bus server and client whose certificates can be renewed");
    }
    Object value;
    try {
      value = field(bus.getClass(), name, type).get(bus);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Vert.x changed: " + EVENT_BUS_CLASS + "." + name + " cannot be read ("
          + e.getMessage() + "); EventBusTls must reach the event bus's " + type.getSimpleName() + " another way", e);
    }
    if (value == null) {
      throw new IllegalStateException(EVENT_BUS_CLASS + "." + name + " is not set: the event bus has not started, "
          + "or Vert.x changed when it sets it");
    }
    return type.cast(value);
  }

  /**
   * {@code owner}'s instance field {@code name}, opened for reading, when its declared type is {@code type} or a
   * subtype of it.
   *
   * @throws IllegalStateException saying what Vert.x changed when there is no such field or it has another type
   */
  static Field field(Class<?> owner, String name, Class<?> type) {
    Field field;
    try {
      field = owner.getDeclaredField(name);
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("Vert.x changed: " + owner.getName() + " has no field '" + name + "' (the "
          + "clustered event bus's " + type.getSimpleName() + "); EventBusTls must follow where it went", e);
    }
    if (!type.isAssignableFrom(field.getType()) || Modifier.isStatic(field.getModifiers())) {
      throw new IllegalStateException("Vert.x changed: " + owner.getName() + "." + name + " is "
          + (Modifier.isStatic(field.getModifiers()) ? "static " : "") + field.getType().getName() + ", not an "
          + "instance field holding a " + type.getName() + "; EventBusTls must follow where the event bus's "
          + type.getSimpleName() + " went");
    }
    field.setAccessible(true);
    return field;
  }
}
