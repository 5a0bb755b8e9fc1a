package io.busload.agent.cluster;

import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.RunRequest;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.bridge.BridgeJson;
import io.vertx.core.Future;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent outside the cluster: one connection to a coordinator's event-bus bridge, records as JSON.
 * A coordinator is present while that connection is open; the bridge relays to whichever coordinator leads.
 */
public final class BridgeLink implements FleetLink {
  private static final Logger LOG = LoggerFactory.getLogger(BridgeLink.class);
  /** Intake address to the bridge address that relays to it. */
  private static final Map<String, String> BRIDGED = Map.of(
      Addresses.AGENT_HELLO, Addresses.BRIDGE_HELLO,
      Addresses.AGENT_HEARTBEAT, Addresses.BRIDGE_HEARTBEAT,
      Addresses.RESULTS, Addresses.BRIDGE_RESULTS,
      Addresses.RUN_STATUS, Addresses.BRIDGE_RUN_STATUS);

  private final BridgeClient client;

  /** @param client not yet started: this link starts it */
  public BridgeLink(BridgeClient client) {
    this.client = client;
  }

  /** Starts connecting (the first connection may come later; {@link #coordinatorPresent} says when). */
  public BridgeLink start() {
    client.start();
    return this;
  }

  @Override
  public boolean coordinatorPresent() {
    return client.connected();
  }

  @Override
  public String whyAbsent() {
    return "not connected to a coordinator's bridge (BUSLOAD_BRIDGE)";
  }

  @Override
  public Future<Ack> request(String address, Object message, long timeoutMs) {
    return client.request(bridged(address), BridgeJson.toJson(message), timeoutMs)
        .map(reply -> BridgeJson.fromJson(reply, Ack.class));
  }

  @Override
  public void send(String address, Object message) {
    client.send(bridged(address), BridgeJson.toJson(message));
  }

  @Override
  public Future<Void> serveRuns(String agentId, BiConsumer<RunRequest, Consumer<Ack>> handler) {
    client.register(Addresses.bridgeRuns(agentId), incoming -> {
      RunRequest request;
      try {
        request = BridgeJson.fromJson(incoming.body(), RunRequest.class);
      } catch (IllegalArgumentException e) {
        LOG.warn("run request through the bridge not understood: {}", e.getMessage());
        if (incoming.replyAddress() != null) {
          client.reply(incoming.replyAddress(), BridgeJson.toJson(Ack.refused(null, e.getMessage())));
        }
        return;
      }
      handler.accept(request, ack -> {
        if (incoming.replyAddress() != null) {
          client.reply(incoming.replyAddress(), BridgeJson.toJson(ack));
        }
      });
    });
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> close() {
    return client.close();
  }

  private static String bridged(String address) {
    String bridged = BRIDGED.get(address);
    if (bridged == null) {
      throw new IllegalArgumentException("no bridge address for " + address);
    }
    return bridged;
  }
}
