/** What IAM checks, the calls a workload makes to Google Cloud, where those facts come from, and the permissions of every role the stack grants. */

/**
 * What IAM checks a permission on, as a grant must cover it. Cloud Storage checks `storage.buckets.get` and
 * `storage.objects.list` on the bucket (`projects/_/buckets/B`) and object reads and writes on the object
 * (`projects/_/buckets/B/objects/NAME`). Source: the facts' `SOURCES.gcsResourceNames`.
 */
export type GrantScope =
    /** The bucket the model server streams its weights from. */
    | "weightsBucket"
    /** An object under the model's weights prefix. */
    | "weightsObject"
    /** The bucket holding the compilation cache. */
    | "cacheBucket"
    /** An object under the service's compilation cache prefix. */
    | "cacheObject"
    /** The stack's project. */
    | "project"
    /** The Artifact Registry repository the TPU pods' image is pulled through. */
    | "imageRepository";

/** One call a workload makes to a Google API. */
export interface GoogleApiCall {
    /** The request, as the API names it. */
    readonly request: string;
    /** Where upstream makes it (owner/repo@tag:path:line) or the document that says so. */
    readonly source: string;
    readonly permission: string;
    readonly on: GrantScope;
}

/** A workload the stack runs, the identity it calls Google as, and its calls. */
export interface WorkloadContract {
    readonly workload: string;
    /** Whose credentials the calls carry. */
    readonly identity: string;
    /** When the stack runs it, or makes these calls. */
    readonly when: string;
    readonly calls: readonly GoogleApiCall[];
}

/**
 * Each predefined role the stack grants, with every permission it carries. Source: the facts' `SOURCES.iamRoles`.
 */
export const IAM_ROLE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
    "roles/storage.objectViewer": [
        "resourcemanager.projects.get",
        "resourcemanager.projects.list",
        "storage.folders.get",
        "storage.folders.list",
        "storage.managedFolders.get",
        "storage.managedFolders.list",
        "storage.objects.get",
        "storage.objects.list",
    ],
    "roles/storage.objectUser": [
        "monitoring.timeSeries.create",
        "orgpolicy.policy.get",
        "resourcemanager.projects.get",
        "resourcemanager.projects.list",
        "storage.folders.create",
        "storage.folders.delete",
        "storage.folders.get",
        "storage.folders.list",
        "storage.folders.rename",
        "storage.managedFolders.create",
        "storage.managedFolders.delete",
        "storage.managedFolders.get",
        "storage.managedFolders.list",
        "storage.multipartUploads.abort",
        "storage.multipartUploads.create",
        "storage.multipartUploads.list",
        "storage.multipartUploads.listParts",
        "storage.objects.create",
        "storage.objects.createContext",
        "storage.objects.delete",
        "storage.objects.deleteContext",
        "storage.objects.get",
        "storage.objects.list",
        "storage.objects.move",
        "storage.objects.restore",
        "storage.objects.update",
        "storage.objects.updateContext",
    ],
    /** The smallest GA role with storage.buckets.get; it reads bucket metadata and lists object names, never object data. */
    "roles/storage.legacyBucketReader": [
        "storage.buckets.get",
        "storage.folders.get",
        "storage.folders.list",
        "storage.managedFolders.get",
        "storage.managedFolders.list",
        "storage.multipartUploads.list",
        "storage.objects.list",
    ],
    "roles/container.defaultNodeServiceAccount": [
        "autoscaling.sites.writeMetrics",
        "logging.logEntries.create",
        "monitoring.metricDescriptors.create",
        "monitoring.metricDescriptors.list",
        "monitoring.timeSeries.create",
        "monitoring.timeSeries.list",
    ],
    "roles/serviceusage.serviceUsageConsumer": [
        "monitoring.timeSeries.list",
        "serviceusage.consumerpolicy.analyze",
        "serviceusage.consumerpolicy.get",
        "serviceusage.contentsecuritypolicy.get",
        "serviceusage.effectivemcppolicy.get",
        "serviceusage.effectivepolicy.get",
        "serviceusage.groups.list",
        "serviceusage.groups.listExpandedMembers",
        "serviceusage.groups.listMembers",
        "serviceusage.mcppolicy.get",
        "serviceusage.operations.get",
        "serviceusage.quotas.get",
        "serviceusage.services.get",
        "serviceusage.services.list",
        "serviceusage.services.use",
        "serviceusage.values.test",
    ],
    "roles/artifactregistry.reader": [
        "artifactregistry.attachments.get",
        "artifactregistry.attachments.list",
        "artifactregistry.dockerimages.get",
        "artifactregistry.dockerimages.list",
        "artifactregistry.files.download",
        "artifactregistry.files.get",
        "artifactregistry.files.list",
        "artifactregistry.locations.get",
        "artifactregistry.locations.list",
        "artifactregistry.mavenartifacts.get",
        "artifactregistry.mavenartifacts.list",
        "artifactregistry.npmpackages.get",
        "artifactregistry.npmpackages.list",
        "artifactregistry.packages.get",
        "artifactregistry.packages.list",
        "artifactregistry.projectconfigs.get",
        "artifactregistry.projectsettings.get",
        "artifactregistry.pythonpackages.get",
        "artifactregistry.pythonpackages.list",
        "artifactregistry.repositories.downloadArtifacts",
        "artifactregistry.repositories.exportArtifacts",
        "artifactregistry.repositories.get",
        "artifactregistry.repositories.list",
        "artifactregistry.repositories.listEffectiveTags",
        "artifactregistry.repositories.listTagBindings",
        "artifactregistry.repositories.readViaVirtualRepository",
        "artifactregistry.rules.get",
        "artifactregistry.rules.list",
        "artifactregistry.tags.get",
        "artifactregistry.tags.list",
        "artifactregistry.versions.get",
        "artifactregistry.versions.list",
        "resourcemanager.projects.get",
    ],
    "roles/monitoring.viewer": [
        "cloudnotifications.activities.list",
        "monitoring.alertPolicies.get",
        "monitoring.alertPolicies.list",
        "monitoring.alertPolicies.listEffectiveTags",
        "monitoring.alertPolicies.listTagBindings",
        "monitoring.alerts.get",
        "monitoring.alerts.list",
        "monitoring.dashboards.get",
        "monitoring.dashboards.list",
        "monitoring.dashboards.listEffectiveTags",
        "monitoring.dashboards.listTagBindings",
        "monitoring.groups.get",
        "monitoring.groups.list",
        "monitoring.metricDescriptors.get",
        "monitoring.metricDescriptors.list",
        "monitoring.monitoredResourceDescriptors.get",
        "monitoring.monitoredResourceDescriptors.list",
        "monitoring.notificationChannelDescriptors.get",
        "monitoring.notificationChannelDescriptors.list",
        "monitoring.notificationChannels.get",
        "monitoring.notificationChannels.list",
        "monitoring.services.get",
        "monitoring.services.list",
        "monitoring.slos.get",
        "monitoring.slos.list",
        "monitoring.snoozes.get",
        "monitoring.snoozes.list",
        "monitoring.timeSeries.list",
        "monitoring.uptimeCheckConfigs.get",
        "monitoring.uptimeCheckConfigs.list",
        "opsconfigmonitoring.resourceMetadata.list",
        "resourcemanager.projects.get",
        "resourcemanager.projects.list",
        "stackdriver.projects.get",
        "stackdriver.resourceMetadata.list",
    ],
};
