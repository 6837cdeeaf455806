# Sourced by the device scripts that build the NCCL engine against the GPU machine's own NCCL
# (hack/gpu/kinds-run.sh, suite-device.sh): finds it (the nvidia.nccl wheel of its Python, else
# any nvidia/nccl/lib/libnccl.so.2), lays out NCCL_ROOT as CMake wants it (include/, lib/
# with libnccl.so) in $N, and puts it on LD_LIBRARY_PATH.
NCCL_HOME=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null) ||
  NCCL_HOME=$(dirname "$(dirname "$(find / -name libnccl.so.2 -path '*nvidia/nccl/lib/*' 2>/dev/null | head -1)")")
N=/tmp/spiral-nccl-home; mkdir -p $N/lib; ln -sfn "$NCCL_HOME/include" $N/include
ln -sf "$NCCL_HOME/lib/libnccl.so.2" $N/lib/libnccl.so.2; ln -sf libnccl.so.2 $N/lib/libnccl.so
export LD_LIBRARY_PATH=$N/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
