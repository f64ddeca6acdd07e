// What ASTRA-sim needs changed in the Chakra conversions of real PyTorch traces in ../shared/traces/pytorch-real
// (README there) before it runs them: dependencies on node ids absent from the file are dropped (ASTRA-sim refuses
// the file at load), and host-side collectives without comm_type (c10d/NCCL CPU ops) become CPU compute nodes of
// the same duration (ASTRA-sim stops on "Comm node should not be on CPU"; tracewatt replays them so anyway).
// Changes the nodes in place and returns them. `chakra` is the chakra module of one build (NodeType, attrBool, attrInt).
export function repairForAstraSim(chakra, nodes) {
  const { NodeType, attrBool, attrInt } = chakra;
  const ids = new Set(nodes.map((n) => n.id));
  for (const n of nodes) {
    n.dataDeps = n.dataDeps.filter((d) => ids.has(d));
    n.ctrlDeps = n.ctrlDeps.filter((d) => ids.has(d));
    const hostCollective =
      n.type === NodeType.COMM_COLL_NODE && attrInt(n, 'comm_type') === undefined && attrBool(n, 'is_cpu_op') === true;
    if (hostCollective) n.type = NodeType.COMP_NODE;
  }
  return nodes;
}
