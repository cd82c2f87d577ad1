// The one header hsa-cuda/src/queue.cpp may include from the repository.
