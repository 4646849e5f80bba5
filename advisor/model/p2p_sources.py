"""Sources that both the plan's P2P readiness (advisor.model.readiness) and the live machine's doctor
(advisor.measure.doctor) cite, kept in one place so the two never cite different versions."""

TINYGRAD = "https://github.com/tinygrad/open-gpu-kernel-modules/blob/1f40371d287b0e7079e972e7468c09e0a29e2768/README.md"
AIKITORIA = "https://github.com/aikitoria/open-gpu-kernel-modules/blob/08dc34555bf8cdacdd89237da42419e6ce5efdc4/README.md"
NCCL_ACS = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs"
VM_P2P = "https://github.com/noonghunna/club-3090/blob/main/docs/PCIE_P2P.md"
VM_HANG = "https://github.com/NVIDIA/nccl/issues/2335"
