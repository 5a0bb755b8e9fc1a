// Particle update in three layouts (family "particles", AoS, SoA and AoSoA):
// every particle has 8 fp32 fields x, y, z, vx, vy, vz, mass, charge; one launch moves every particle by
// its velocity, in place: x = fmaf(vx, dt, x) (likewise y, z). mass and charge are carried, never read:
// in AoS they share the position's sectors, which is the cost the layouts compare.
// Arguments of every entry point, in order (io.busload.kernels.families.Particles):
//   float* p, unsigned long long n, float dt       (p holds 8 * n floats; n a multiple of 32)
// Launch, every variant: block 256, grid n / 256 (rounded up), one particle per thread, no shared memory.
// fmaf is explicit so the CPU reference (Math.fma) matches bit for bit.
#define BUSLOAD_PARTICLES_FIELDS 8
#define BUSLOAD_PARTICLES_CHUNK 32

// AoS: particle i's field f at p[8 * i + f]; the lanes of a warp are 32 bytes apart, one sector each
// (32 sectors per request for every field access).
extern "C" __global__ void busload_particles_aos(float* __restrict__ p, unsigned long long n, float dt) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float* q = p + i * BUSLOAD_PARTICLES_FIELDS;
  const float x = q[0], y = q[1], z = q[2], vx = q[3], vy = q[4], vz = q[5];
  q[0] = fmaf(vx, dt, x);
  q[1] = fmaf(vy, dt, y);
  q[2] = fmaf(vz, dt, z);
}

// SoA: field f of particle i at p[f * n + i]; every field access is 32 consecutive floats (4 sectors).
extern "C" __global__ void busload_particles_soa(float* __restrict__ p, unsigned long long n, float dt) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = p[i], y = p[n + i], z = p[2 * n + i];
  const float vx = p[3 * n + i], vy = p[4 * n + i], vz = p[5 * n + i];
  p[i] = fmaf(vx, dt, x);
  p[n + i] = fmaf(vy, dt, y);
  p[2 * n + i] = fmaf(vz, dt, z);
}

// AoSoA: chunks of 32 particles, each chunk 8 fields x 32 floats; particle i's field f at
// p[(i / 32) * 256 + f * 32 + i % 32]. A warp is one chunk: 4 sectors per access, like SoA, with all of a
// particle's fields within 1 KiB.
extern "C" __global__ void busload_particles_aosoa(float* __restrict__ p, unsigned long long n, float dt) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float* q = p + (i / BUSLOAD_PARTICLES_CHUNK) * (BUSLOAD_PARTICLES_CHUNK * BUSLOAD_PARTICLES_FIELDS)
      + (i % BUSLOAD_PARTICLES_CHUNK);
  const float x = q[0], y = q[BUSLOAD_PARTICLES_CHUNK], z = q[2 * BUSLOAD_PARTICLES_CHUNK];
  const float vx = q[3 * BUSLOAD_PARTICLES_CHUNK], vy = q[4 * BUSLOAD_PARTICLES_CHUNK],
              vz = q[5 * BUSLOAD_PARTICLES_CHUNK];
  q[0] = fmaf(vx, dt, x);
  q[BUSLOAD_PARTICLES_CHUNK] = fmaf(vy, dt, y);
  q[2 * BUSLOAD_PARTICLES_CHUNK] = fmaf(vz, dt, z);
}
