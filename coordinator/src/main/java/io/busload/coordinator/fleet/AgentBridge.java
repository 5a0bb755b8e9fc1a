package io.busload.coordinator.fleet;

import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.bridge.BridgeJson;
import io.busload.protocol.cluster.FleetTls;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.sockjs.BridgeEvent;
import io.vertx.ext.web.handler.sockjs.SockJSBridgeOptions;
import io.vertx.ext.web.handler.sockjs.SockJSHandler;
import io.vertx.ext.web.handler.sockjs.SockJSHandlerOptions;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import io.vertx.ext.web.handler.sockjs.Transport;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where agents that are not cluster members reach the fleet (docs/design/fleet-transport.md): Vert.x's
 * event-bus bridge on its own port, behind mutual TLS when the coordinator has a fleet certificate.
 *
 * <p>The bridge carries JSON. Relays turn it into the protocol's records on the way in (to the intake's own
 * addresses, wherever the leading coordinator is) and RunRequests into JSON on the way out, so the intake, the run
 * queues and the checks see a bridged agent exactly as they see a member.
 *
 * <p>Who a connection is comes from its client certificate, never from what it says: an agent certificate only
 * (role {@code agent}), registering only its own runs address, and every message it sends stamped with its
 * certificate's name, which the relay compares with the message's {@code agentId}. Without TLS (loopback, or
 * {@code BUSLOAD_TLS=off}) there is no name to compare, as on the plain event bus.
 */
public final class AgentBridge {
  private static final Logger LOG = LoggerFactory.getLogger(AgentBridge.class);
  /** The header the bridge stamps on every message from a connection: that connection's certificate name. */
  static final String IDENTITY_HEADER = "busload-bridge-agent";
  static final long PING_TIMEOUT_MS = 20_000;
  static final long REPLY_TIMEOUT_MS = 30_000;
  /** Less than the bridge's own reply timeout, so the agent hears why rather than a bare timeout. */
  static final long RELAY_TIMEOUT_MS = 25_000;

  private record Relay(SockJSSocket socket, MessageConsumer<RunRequest> consumer) {}

  private final Vertx vertx;
  private final FleetTls.Loaded tls;
  private final Refusals refusals;
  /** Connections and the name each proved; "" where TLS is off. */
  private final Map<SockJSSocket, String> identities = new HashMap<>();
  /** Per agent id: the connection its runs go to (the newest), through this coordinator. */
  private final Map<String, Relay> relays = new HashMap<>();
  private final List<MessageConsumer<?>> inbound = new ArrayList<>();
  private HttpServer server;
  private io.vertx.core.Handler<io.vertx.core.http.HttpConnection> onConnection = connection -> {};
  private java.util.function.UnaryOperator<io.vertx.core.Handler<io.vertx.core.http.HttpServerRequest>> guard =
      java.util.function.UnaryOperator.identity();
  private java.time.Duration idleTimeout;
  private int socketsPerClient = Integer.MAX_VALUE;
  /** Open bridge sockets by client address, against {@link #socketsPerClient}. */
  private final Map<String, Integer> socketsByClient = new HashMap<>();
  private final Map<SockJSSocket, String> clientOf = new HashMap<>();
  private long refusedSockets;
  private java.util.function.Consumer<X509Certificate> verified = certificate -> { };

  /**
   * @param tls this coordinator's fleet certificate, or null for a plain bridge (loopback or TLS off)
   * @param refusals where a connection speaking for another agent is counted, and logged once per certificate name
   */
  public AgentBridge(Vertx vertx, FleetTls.Loaded tls, Refusals refusals) {
    this.vertx = vertx;
    this.tls = tls;
    this.refusals = refusals;
  }

  /** Where each verified agent certificate goes when its connection is accepted (for their expiries). */
  public AgentBridge certificates(java.util.function.Consumer<X509Certificate> verified) {
    this.verified = verified;
    return this;
  }

  /**
   * New certificates for connections from now on; connected agents keep theirs, so renewing drops nobody. Completes
   * with whether the server took them.
   */
  public Future<Boolean> updateTls(FleetTls.Loaded renewed) {
    return server == null ? Future.succeededFuture(false) : server.updateSSLOptions(renewed.bridgeServerSsl());
  }

  /**
   * What the bridge's server lets a client hold, set before {@link #start}: {@code onConnection} sees every new
   * connection, {@code guard} wraps the request handler (and may answer instead of it), and a connection silent for
   * {@code idleTimeout} is closed (the agents ping every few seconds), and at most {@code socketsPerClient} bridge
   * sockets are open from one client address: the next is closed at once, and its agent connects again after its
   * backoff, its results waiting in its outbox.
   */
  public AgentBridge limit(io.vertx.core.Handler<io.vertx.core.http.HttpConnection> onConnection,
      java.util.function.UnaryOperator<io.vertx.core.Handler<io.vertx.core.http.HttpServerRequest>> guard,
      java.time.Duration idleTimeout, int socketsPerClient) {
    this.socketsPerClient = socketsPerClient;
    this.onConnection = onConnection;
    this.guard = guard;
    this.idleTimeout = idleTimeout;
    return this;
  }

  /** Registers the relays and listens on {@code host:port} (0 picks one); completes with the bound port. */
  public Future<Integer> start(String host, int port) {
    EventBus bus = vertx.eventBus();
    inbound.add(bus.<JsonObject>consumer(Addresses.BRIDGE_HELLO,
        m -> relay(m, Addresses.AGENT_HELLO, AgentHello.class, AgentHello::agentId, AgentHello::agentId)));
    inbound.add(bus.<JsonObject>consumer(Addresses.BRIDGE_RESULTS,
        m -> relay(m, Addresses.RESULTS, KernelResult.class, KernelResult::agentId,
            r -> r.id() == null ? null : r.id().toString())));
    inbound.add(bus.<JsonObject>consumer(Addresses.BRIDGE_RUN_STATUS,
        m -> relay(m, Addresses.RUN_STATUS, RunStatus.class, RunStatus::agentId, RunStatus::runId)));
    inbound.add(bus.<JsonObject>consumer(Addresses.BRIDGE_HEARTBEAT,
        m -> relay(m, Addresses.AGENT_HEARTBEAT, Heartbeat.class, Heartbeat::agentId, Heartbeat::agentId)));

    SockJSBridgeOptions options = new SockJSBridgeOptions()
        .setPingTimeout(PING_TIMEOUT_MS)
        .setReplyTimeout(REPLY_TIMEOUT_MS)
        .setMaxAddressLength(200)
        .addOutboundPermitted(new PermittedOptions().setAddressRegex("busload\\.bridge\\.agent\\.[^.]+\\.runs"));
    for (String address : List.of(Addresses.BRIDGE_HELLO, Addresses.BRIDGE_HEARTBEAT, Addresses.BRIDGE_RESULTS,
        Addresses.BRIDGE_RUN_STATUS)) {
      options.addInboundPermitted(new PermittedOptions().setAddress(address));
    }
    SockJSHandlerOptions transports = new SockJSHandlerOptions().setRegisterWriteHandler(false);
    // WebSockets only (the raw transport comes with them): the SockJS fallbacks (polling, event source) keep
    // sessions no agent needs.
    for (Transport transport : Transport.values()) {
      if (transport != Transport.WEBSOCKET) {
        transports.addDisabledTransport(transport.name());
      }
    }
    Router router = Router.router(vertx);
    router.route("/bridge/*").subRouter(SockJSHandler.create(vertx, transports).bridge(options, this::onEvent));
    HttpServerOptions http = new HttpServerOptions().setHost(host).setPort(port);
    if (idleTimeout != null) {
      // No HTTP/2 over cleartext: the connection is reported (and counted) at once, not after its first bytes.
      http.setIdleTimeout((int) idleTimeout.toSeconds()).setIdleTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS)
          .setHttp2ClearTextEnabled(false);
    }
    if (tls != null) {
      tls.applyBridgeServer(http);
    }
    return Future.all(inbound.stream().map(MessageConsumer::completion).toList())
        .compose(registered -> vertx.createHttpServer(http).connectionHandler(onConnection)
            .requestHandler(guard.apply(router)).listen())
        .map(listening -> {
          server = listening;
          LOG.info("agent bridge ({}) on {}://{}:{}{}", tls == null ? "plain" : "mutual TLS", tls == null ? "ws" : "wss",
              host, listening.actualPort(), io.busload.protocol.bridge.BridgeClient.PATH);
          return listening.actualPort();
        });
  }

  public Future<Void> stop() {
    inbound.forEach(MessageConsumer::unregister);
    relays.values().forEach(r -> r.consumer().unregister());
    relays.clear();
    return server == null ? Future.succeededFuture() : server.close();
  }

  /** Connections open now (tests and the capacity figures read it). */
  public int connections() {
    return identities.size();
  }

  private void onEvent(BridgeEvent event) {
    SockJSSocket socket = event.socket();
    BridgeEventType type = event.type();
    switch (type) {
      case SOCKET_CREATED -> {
        String client = socket.remoteAddress() == null ? "unknown" : socket.remoteAddress().hostAddress();
        if (socketsByClient.getOrDefault(client, 0) >= socketsPerClient) {
          if (refusedSockets++ % 100 == 0) {
            LOG.warn("bridge socket from {} refused: {} open from that address, the most allowed ({} so far)", client,
                socketsPerClient, refusedSockets);
          }
          event.complete(false);
          return;
        }
        String name = identify(socket);
        if (name == null) {
          event.complete(false);
          return;
        }
        identities.put(socket, name);
        socketsByClient.merge(client, 1, Integer::sum);
        clientOf.put(socket, client);
        event.complete(true);
      }
      case REGISTER -> {
        // Relayed from here (this version of the bridge sends no REGISTERED event): should the bridge still refuse
        // the address, runs relayed to it find no handler, and the run queue asks again later.
        String agentId = ownRuns(socket, event.getRawMessage().getString("address"));
        if (agentId != null) {
          relayRuns(socket, agentId);
        }
        event.complete(agentId != null);
      }
      case UNREGISTER -> {
        String agentId = ownRuns(socket, event.getRawMessage().getString("address"));
        Relay relay = agentId == null ? null : relays.get(agentId);
        if (relay != null && relay.socket() == socket) {
          relays.remove(agentId).consumer().unregister();
        }
        event.complete(true);
      }
      case SEND -> event.complete(stamp(event));
      case PUBLISH -> event.complete(false);
      case SOCKET_CLOSED, SOCKET_ERROR -> {
        identities.remove(socket);
        String client = clientOf.remove(socket);
        if (client != null) {
          socketsByClient.computeIfPresent(client, (k, n) -> n <= 1 ? null : n - 1);
        }
        relays.entrySet().removeIf(e -> {
          if (e.getValue().socket() == socket) {
            e.getValue().consumer().unregister();
            return true;
          }
          return false;
        });
        event.complete(true);
      }
      default -> event.complete(true);
    }
  }

  /** The connection's proved name: its agent certificate's CN; "" without TLS; null to refuse it. */
  private String identify(SockJSSocket socket) {
    if (tls == null) {
      return "";
    }
    List<Certificate> chain;
    try {
      chain = socket.routingContext().request().connection().peerCertificates();
    } catch (SSLPeerUnverifiedException | RuntimeException e) {
      LOG.warn("bridge connection from {} refused: no verified client certificate", socket.remoteAddress());
      return null;
    }
    if (chain == null || chain.isEmpty() || !(chain.getFirst() instanceof X509Certificate certificate)) {
      LOG.warn("bridge connection from {} refused: no client certificate", socket.remoteAddress());
      return null;
    }
    String role = FleetTls.roleOf(certificate);
    String name = FleetTls.nameOf(certificate);
    if (!"agent".equals(role) || name == null || name.isBlank()) {
      LOG.warn("bridge connection from {} refused: certificate {} is for role '{}', not an agent",
          socket.remoteAddress(), certificate.getSubjectX500Principal(), role);
      return null;
    }
    verified.accept(certificate);
    return name;
  }

  /** The agent id of a runs address this connection may register, or null. */
  private String ownRuns(SockJSSocket socket, String address) {
    String name = identities.get(socket);
    String agentId = Addresses.agentOfBridgeRuns(address);
    if (name == null || agentId == null) {
      return null;
    }
    if (!name.isEmpty() && !name.equals(agentId)) {
      refusals.trespass(name, Refusals.Trespass.NOT_ITS_NAME, "connection from " + socket.remoteAddress()
          + " may not register " + address);
      return null;
    }
    return agentId;
  }

  /**
   * Every message a connection sends carries the name it proved, replacing any headers it wrote itself, so a relay
   * can tell an agent speaking for itself from one speaking for another. Replies to runs pass too (the bridge lets
   * a reply through only to a message it delivered to that connection).
   */
  private boolean stamp(BridgeEvent event) {
    String name = identities.get(event.socket());
    if (name == null) {
      return false;
    }
    JsonObject raw = event.getRawMessage();
    raw.remove("headers");
    if (!name.isEmpty()) {
      raw.put("headers", new JsonObject().put(IDENTITY_HEADER, name));
    }
    event.setRawMessage(raw);
    return true;
  }

  private void relayRuns(SockJSSocket socket, String agentId) {
    Relay older = relays.remove(agentId);
    if (older != null) {
      older.consumer().unregister();
      if (older.socket() != socket) {
        LOG.info("agent {} connected again from {}: closing its older connection", agentId, socket.remoteAddress());
        older.socket().close();
      }
    }
    MessageConsumer<RunRequest> consumer = vertx.eventBus().consumer(Addresses.agentRuns(agentId), message -> {
      JsonObject request = BridgeJson.toJson(message.body());
      vertx.eventBus().<JsonObject>request(Addresses.bridgeRuns(agentId), request,
          new DeliveryOptions().setSendTimeout(RELAY_TIMEOUT_MS)).onComplete(reply -> {
            if (reply.failed()) {
              fail(message, reply.cause());
              return;
            }
            try {
              message.reply(BridgeJson.fromJson(reply.result().body(), Ack.class));
            } catch (RuntimeException e) {
              message.fail(400, "agent " + agentId + " answered a run with " + e.getMessage());
            }
          });
    });
    relays.put(agentId, new Relay(socket, consumer));
  }

  /**
   * Decodes, checks the sender against the connection's certificate, and passes the record on: as a request whose
   * answer goes back as JSON, or (a heartbeat, sent without a reply address) as a send.
   */
  private <T> void relay(Message<JsonObject> message, String address, Class<T> type, Function<T, String> agentOf,
      Function<T, String> idOf) {
    T record;
    try {
      record = BridgeJson.fromJson(message.body(), type);
    } catch (RuntimeException e) {
      refuse(message, null, e.getMessage());
      return;
    }
    String claimed = message.headers().get(IDENTITY_HEADER);
    if (claimed != null && !claimed.equals(agentOf.apply(record))) {
      String reason = "agentId '" + Refusals.printable(agentOf.apply(record))
          + "' is not this connection's certificate name '" + claimed + "'";
      refusals.trespass(claimed, Refusals.Trespass.NOT_ITS_NAME, message.address() + ": " + reason);
      if (message.replyAddress() != null) {
        message.reply(BridgeJson.toJson(Ack.refused(idOf.apply(record), reason)));
      }
      return;
    }
    if (message.replyAddress() == null) {
      vertx.eventBus().send(address, record);
      return;
    }
    vertx.eventBus().<Ack>request(address, record, new DeliveryOptions().setSendTimeout(RELAY_TIMEOUT_MS))
        .onComplete(reply -> {
          if (reply.succeeded()) {
            message.reply(BridgeJson.toJson(reply.result().body()));
          } else {
            fail(message, reply.cause());
          }
        });
  }

  /**
   * A message that does not decode: a refusal the agent reads in its ack; one sent without a reply address is dropped
   * and counted, logged at most once every 10 s however many come, on one line whatever the reason holds.
   */
  private void refuse(Message<JsonObject> message, String id, String reason) {
    if (message.replyAddress() == null) {
      refusals.count(message.address(), Refusals.Reason.MALFORMED, Refusals.printable(reason));
    } else {
      message.reply(BridgeJson.toJson(Ack.refused(id, reason)));
    }
  }

  private static void fail(Message<?> message, Throwable cause) {
    if (cause instanceof ReplyException e) {
      message.fail(e.failureCode(), e.failureType() + ": " + e.getMessage());
    } else {
      message.fail(500, String.valueOf(cause.getMessage()));
    }
  }
}
