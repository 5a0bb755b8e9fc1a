package io.busload.protocol.cluster;

import com.hazelcast.config.Config;
import io.vertx.core.Completable;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.core.spi.cluster.RegistrationListener;
import io.vertx.core.spi.cluster.RegistrationUpdateEvent;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Vert.x's Hazelcast cluster manager, keeping what the fleet's repairs after a split or a lost coordinator need,
 * all of it from Vert.x's cluster-manager SPI ({@code io.vertx.core.spi.cluster}), which every cluster manager
 * implements and Vert.x calls:
 * <ul>
 *   <li>the event bus's route cache, which Vert.x hands to {@link #registrationListener} (it answers
 *       {@link RegistrationListener#wantsUpdatesFor} for each address it routes, and takes
 *       {@link RegistrationListener#registrationsUpdated} as the cluster's own events do);
 *   <li>every address the route cache asked the cluster about ({@link #getRegistrations});
 *   <li>this member's own consumer registrations ({@link #addRegistration}, {@link #removeRegistration}).
 * </ul>
 * {@link #rereadRoutes} and {@link #republish} are the two repairs built from them (docs/design/fleet-transport.md).
 */
public class FleetClusterManager extends HazelcastClusterManager {
  private final Set<String> asked = ConcurrentHashMap.newKeySet();
  private final Map<String, Set<RegistrationInfo>> own = new ConcurrentHashMap<>();
  private volatile RegistrationListener routes;

  public FleetClusterManager(Config config) {
    super(config);
  }

  @Override
  public void registrationListener(RegistrationListener listener) {
    routes = listener;
    super.registrationListener(listener);
  }

  @Override
  public void getRegistrations(String address, Completable<List<RegistrationInfo>> promise) {
    asked.add(address);
    super.getRegistrations(address, promise);
  }

  @Override
  public void addRegistration(String address, RegistrationInfo info, Completable<Void> promise) {
    if (!info.localOnly()) {
      own.computeIfAbsent(address, a -> ConcurrentHashMap.newKeySet()).add(info);
    }
    super.addRegistration(address, info, promise);
  }

  @Override
  public void removeRegistration(String address, RegistrationInfo info, Completable<Void> promise) {
    own.computeIfPresent(address, (a, infos) -> {
      infos.remove(info);
      return infos.isEmpty() ? null : infos;
    });
    super.removeRegistration(address, info, promise);
  }

  /** The addresses this member's event bus routes now (those it has asked about and still caches). */
  public List<String> routedAddresses() {
    RegistrationListener listener = routes;
    return listener == null ? List.of() : asked.stream().filter(listener::wantsUpdatesFor).sorted().toList();
  }

  /** The cluster's registrations of {@code address} as they are now. */
  public Future<List<RegistrationInfo>> registrations(String address) {
    Promise<List<RegistrationInfo>> promise = Promise.promise();
    super.getRegistrations(address, promise);
    return promise.future();
  }

  /**
   * Reads each routed address's registrations from the cluster again and hands them to the event bus's route cache
   * as a registration event would; returns the addresses re-read, failing with the first address that could not
   * be read.
   */
  public Future<List<String>> rereadRoutes() {
    RegistrationListener listener = routes;
    List<String> addresses = routedAddresses();
    if (listener == null || addresses.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    List<Future<Void>> reads = new ArrayList<>();
    for (String address : addresses) {
      reads.add(registrations(address)
          .map(found -> {
            listener.registrationsUpdated(new RegistrationUpdateEvent(address, found));
            return (Void) null;
          })
          .recover(e -> Future.failedFuture(new IllegalStateException("cannot read the routes of " + address, e))));
    }
    return Future.all(reads).map(all -> addresses);
  }

  /**
   * Puts this member's node info and its own consumer registrations into the cluster's maps again, and tells the
   * route cache that the registrations it holds may be stale: what Vert.x does for itself after a member leaves
   * or a split-brain merge, done again when the data members that held those maps were all gone.
   */
  public Future<Void> republish() {
    Promise<Void> node = Promise.promise();
    setNodeInfo(getNodeInfo(), node);
    return node.future().compose(done -> {
      RegistrationListener listener = routes;
      if (listener != null) {
        listener.registrationsLost();
      }
      List<Future<Void>> puts = new ArrayList<>();
      own.forEach((address, infos) -> infos.forEach(info -> {
        Promise<Void> put = Promise.promise();
        super.addRegistration(address, info, put);
        puts.add(put.future());
      }));
      return Future.all(puts).mapEmpty();
    });
  }
}
