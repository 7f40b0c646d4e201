package api

import "strconv"

// The API takes the sizes of a service (cpu_millis, memory_gbs) as digit strings in its create, fork
// and resize bodies. The provider hands the client numbers: this file is the one place they become
// strings.

// sizeString is a size as the API's bodies want it.
func sizeString(n int) string { return strconv.Itoa(n) }

// resizeInput is the resize body of services and replica sets.
func resizeInput(cpuMillis, memoryGbs int) ResizeInput {
	return ResizeInput{CPUMillis: sizeString(cpuMillis), MemoryGbs: sizeString(memoryGbs)}
}

// SetSizes sets the CPU and memory of a create.
func (b *ServiceCreate) SetSizes(cpuMillis, memoryGbs int) {
	b.CPUMillis, b.MemoryGbs = new(sizeString(cpuMillis)), new(sizeString(memoryGbs))
}

// SetSizes sets the CPU and memory of a fork (else the parent's).
func (b *ForkServiceCreate) SetSizes(cpuMillis, memoryGbs int) {
	b.CPUMillis, b.MemoryGbs = new(sizeString(cpuMillis)), new(sizeString(memoryGbs))
}

// SetEnvironment sets the environment tag of a create.
func (b *ServiceCreate) SetEnvironment(env Environment) { b.EnvironmentTag = &env }

// SetEnvironment sets the environment tag of a fork.
func (b *ForkServiceCreate) SetEnvironment(env Environment) { b.EnvironmentTag = &env }
