/**
 * What a measuring device is, whatever runs it (BabelStream's one interface, one folder per backend): the
 * {@link io.busload.agent.device.Device} interface, the one factory that discovers devices, and the worker
 * thread each device's calls are confined to (a CUDA context is bound to a thread).
 */
package io.busload.agent.device;
