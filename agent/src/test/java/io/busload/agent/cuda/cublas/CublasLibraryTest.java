package io.busload.agent.cuda.cublas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding libcublas without a GPU: what is searched, in which order, and what an absence reports. */
class CublasLibraryTest {
  @TempDir Path temp;

  @Test
  void find_noLibraryAnywhere_unavailableNamingEveryPlaceSearched() throws IOException {
    Path cuda = Files.createDirectories(temp.resolve("cuda/lib64"));
    Path distro = Files.createDirectories(temp.resolve("usr/lib"));
    CublasLibrary.Search search = new CublasLibrary.Search(null, List.of(cuda, distro), List.of(), "ldconfig -p (0 entries)");

    assertThatThrownBy(() -> CublasLibrary.find(search))
        .isInstanceOf(CublasUnavailableException.class)
        .hasMessage("no libcublas.so.* found in [" + cuda + ", " + distro + "] nor in ldconfig -p (0 entries); set "
            + "BUSLOAD_CUBLAS to the library file");
  }

  @Test
  void find_twelveAndThirteenPresent_prefersThirteenWhateverTheFolderOrder() throws IOException {
    Path old = Files.createDirectories(temp.resolve("old"));
    Path current = Files.createDirectories(temp.resolve("current"));
    Files.createFile(old.resolve("libcublas.so.12"));
    Path thirteen = Files.createFile(current.resolve("libcublas.so.13"));

    assertThat(CublasLibrary.find(new CublasLibrary.Search(null, List.of(old, current), List.of(), "none")))
        .isEqualTo(thirteen);
  }

  @Test
  void find_onlyInLdconfigCache_takesTheCachedPath() throws IOException {
    Path cached = Files.createFile(temp.resolve("libcublas.so.13"));
    List<Map.Entry<String, Path>> cache = CublasLibrary.parseLdconfig(
        "1234 libs found in cache `/etc/ld.so.cache'\n"
            + "\tlibcublasLt.so.13 (libc6,x86-64) => /nowhere/libcublasLt.so.13\n"
            + "\tlibcublas.so.13 (libc6,x86-64) => " + cached + "\n");

    assertThat(CublasLibrary.find(new CublasLibrary.Search(null, List.of(temp.resolve("empty")), cache, "ldconfig")))
        .isEqualTo(cached);
  }

  @Test
  void find_overrideMissingFile_unavailableNamingTheVariable() {
    CublasLibrary.Search search = new CublasLibrary.Search("/nowhere/libcublas.so.13", List.of(), List.of(), "none");

    assertThatThrownBy(() -> CublasLibrary.find(search))
        .isInstanceOf(CublasUnavailableException.class)
        .hasMessage("BUSLOAD_CUBLAS=/nowhere/libcublas.so.13 is not a readable file");
  }

  @Test
  void parseLdconfig_soNameWithFlags_soNameAndPath() {
    assertThat(CublasLibrary.parseLdconfig("\tlibcublas.so.12 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcublas.so.12\n"))
        .containsExactly(Map.entry("libcublas.so.12", Path.of("/usr/lib/x86_64-linux-gnu/libcublas.so.12")));
  }

  @Test
  void wheelDirectories_pythonEnvironmentOnPath_itsNvidiaWheelFolderSearched() throws IOException {
    // As on the H200 machines: PATH starts with /opt/torch/.venv/bin, no VIRTUAL_ENV, the wheel in nvidia/cu13/lib.
    Path wheel = Files.createDirectories(temp.resolve("venv/lib/python3.12/site-packages/nvidia/cu13/lib"));

    assertThat(CublasLibrary.wheelDirectories(Map.of("PATH", temp.resolve("venv/bin") + ":/usr/bin")))
        .contains(wheel);
  }

  @Test
  void lightweightBeside_ltOfSameVersionPresent_found() throws IOException {
    Path cublas = Files.createFile(temp.resolve("libcublas.so.13"));
    Path lt = Files.createFile(temp.resolve("libcublasLt.so.13"));

    assertThat(CublasLibrary.lightweightBeside(cublas)).contains(lt);
  }

  @Test
  void load_fileThatIsNotALibrary_unavailableSayingItCannotLoad() throws IOException {
    Path fake = Files.writeString(temp.resolve("libcublas.so.13"), "not an ELF file");

    assertThatThrownBy(() -> Cublas.load(new CublasLibrary.Search(null, List.of(temp), List.of(), "none")))
        .isInstanceOf(CublasUnavailableException.class)
        .hasMessageStartingWith("cannot load " + fake);
  }

  @Test
  void load_thisHost_loadsOrSaysWhereItLooked() {
    // The build machines have no cuBLAS; a GPU host has one. Either way the outcome explains itself.
    try {
      Cublas cublas = Cublas.load();
      assertThat(cublas.describe()).contains("libcublas").contains("cuBLAS ");
    } catch (CublasUnavailableException e) {
      assertThat(e.getMessage()).contains("/usr/local/cuda/lib64").contains("ldconfig -p");
    }
  }
}
