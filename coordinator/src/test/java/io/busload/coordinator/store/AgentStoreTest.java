package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Agents and their devices on a real PostgreSQL: a fresh database on the shared test server. */
class AgentStoreTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final AgentStore store = new AgentStore(database.db());

  @Test
  void saveAgent_seenTwice_keepsOneAgentWithItsDevices() {
    store.saveAgent(Fixtures.hello("a1", GPU), Instant.now());
    store.saveAgent(Fixtures.hello("a1", GPU, Fixtures.cpu("h1")), Instant.now());

    List<KnownAgent> agents = store.agents();

    assertThat(agents).singleElement().satisfies(a -> assertThat(a.devices()).containsExactlyInAnyOrder(GPU, Fixtures.cpu("h1")));
  }

  @Test
  void saveAgent_deviceOwnedByAnotherAgent_leftOutAndOwnerKeepsIt() {
    assertThat(store.saveAgent(Fixtures.hello("a1", GPU), Instant.now())).isEmpty();
    DeviceInfo own = Fixtures.gpu("h2", 0);

    List<String> others = store.saveAgent(Fixtures.hello("a2", own, GPU), Instant.now());

    assertThat(others).containsExactly(GPU.id());
    assertThat(store.owners(List.of(GPU.id(), own.id(), "nowhere/cuda:0")))
        .containsOnly(java.util.Map.entry(GPU.id(), "a1"), java.util.Map.entry(own.id(), "a2"));
    assertThat(store.agents()).filteredOn(a -> a.agentId().equals("a1")).singleElement()
        .satisfies(a -> assertThat(a.devices()).containsExactly(GPU));
  }

  @Test
  void saveAgent_deviceInItsNamespaceListedFirstByAnother_takenBackByItsAgent() {
    DeviceInfo squatted = Fixtures.gpu("a1", 3);
    assertThat(store.saveAgent(Fixtures.hello("a2", squatted), Instant.now())).isEmpty();

    assertThat(store.saveAgent(Fixtures.hello("a1", squatted), Instant.now())).isEmpty();
    List<String> again = store.saveAgent(Fixtures.hello("a2", squatted), Instant.now());

    assertThat(again).containsExactly(squatted.id());
    assertThat(store.owners(List.of(squatted.id()))).containsExactly(java.util.Map.entry(squatted.id(), "a1"));
  }
}
