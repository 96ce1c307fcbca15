/**
 * Writes the background clusters the mock cluster serves:
 * `node mock-cluster/backgrounds/build/generate.ts [NAME]...` rewrites
 * `mock-cluster/backgrounds/<name>/` (background.yaml, cluster.yaml, logs/) from the
 * definitions in this folder. The YAML is what is served and reviewed; this script only
 * keeps it consistent (names, owner uids, endpoints, quota usage).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { buildAks, AKS_NOW } from './aks.ts';
import type { ClusterBuilder } from './cluster.ts';
import { buildEks, EKS_NOW } from './eks.ts';
import { buildKubeadm, KUBEADM_NOW } from './kubeadm.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const DEFINITIONS: Record<string, { now: string; description: string; build: () => ClusterBuilder }> = {
  eks: { now: EKS_NOW, build: buildEks, description: 'Amazon EKS 1.31 in eu-west-1: two managed node groups (one spot), VPC CNI, kube-proxy, CoreDNS, EBS CSI, AWS Load Balancer Controller, metrics-server, kube-prometheus-stack, and the pricing and loyalty teams. Healthy, with old restarts, resolved warnings and noisy-but-fine logs.' },
  aks: { now: AKS_NOW, build: buildAks, description: 'Azure AKS 1.30 in westeurope: one VMSS node pool, Azure CNI, cloud-node-manager, CoreDNS with its autoscaler, konnectivity-agent, metrics-server, Azure Disk CSI, kube-prometheus-stack, and the claims and underwriting teams. Healthy, with old restarts, resolved warnings and noisy-but-fine logs.' },
  kubeadm: { now: KUBEADM_NOW, build: buildKubeadm, description: 'A kubeadm 1.31 cluster on premises: one tainted control-plane node with its static pods, three workers, Calico, CoreDNS, local-path-provisioner, kube-prometheus-stack, and the erp and intranet teams. Healthy, with old restarts, resolved warnings and noisy-but-fine logs.' },
};

async function write(name: string): Promise<void> {
  const definition = DEFINITIONS[name];
  if (!definition) throw new Error(`unknown background ${name} (known: ${Object.keys(DEFINITIONS).join(', ')})`);
  const cluster = definition.build();
  const dir = join(ROOT, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'background.yaml'), stringify({ name, description: definition.description, now: definition.now }, { version: '1.1', lineWidth: 0 }));
  const documents = cluster.objects.map((object) => stringify(object, { version: '1.1', lineWidth: 0, sortMapEntries: true, indentSeq: false }));
  await writeFile(join(dir, 'cluster.yaml'), documents.join('---\n'));
  for (const log of cluster.logs) {
    const file = join(dir, 'logs', log.namespace, log.pod, `${log.container}${log.previous ? '.previous' : ''}.log`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, log.text);
  }
  const pods = cluster.objects.filter((object) => object.kind === 'Pod').length;
  process.stdout.write(`${name}: ${cluster.objects.length} objects, ${pods} pods, ${cluster.logs.length} logs\n`);
}

const names = process.argv.slice(2);
for (const name of names.length > 0 ? names : Object.keys(DEFINITIONS)) await write(name);
