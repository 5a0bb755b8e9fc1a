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
}
