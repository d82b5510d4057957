/**
 * The resolved context of a writing job: everything a writer needs, after the saved identity,
 * inline overrides, selections, sender defaults, CTA precedence and subject rules were applied
 * (resolve.ts). It is what `resolved_context` shows, in jobs and dry runs alike.
 */

export const CHANNELS = ['email', 'linkedin'] as const;
export type Channel = (typeof CHANNELS)[number];
export const LINKEDIN_TYPES = ['message', 'connection_request'] as const;
export type LinkedinType = (typeof LINKEDIN_TYPES)[number];

export interface ValueProp {
  id: string;
  feature: string;
}
export interface CaseStudy {
  id: string;
  result: string;
  customer?: string;
  quote?: string;
}
export interface ContentAngle {
  id: string;
  headline: string;
}

export interface ResolvedTarget {
  full_name: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  company_name: string | null;
  industry: string | null;
  city: string | null;
  state: string | null;
  employee_count: number | null;
  website: string | null;
  notes: string | null;
}

export interface ResolvedSender {
  full_name: string;
  title: string | null;
  company_name: string | null;
  signature: string | null;
  source: 'explicit' | 'account_default';
}

export interface ResolvedContext {
  channel: Channel;
  linkedin_type: LinkedinType | null;
  source_mode: 'saved' | 'inline' | 'hybrid';
  identity: {
    id: string | null;
    companyName: string | null;
    versionName: string | null;
    brandVoice: unknown;
    icp: unknown;
    painPoints: string[];
    proofPoints: string[];
  };
  value_props: ValueProp[];
  case_studies: CaseStudy[];
  content_angles: ContentAngle[];
  target: ResolvedTarget;
  sender: ResolvedSender;
  play: { source: 'template' | 'personal'; id: string | null; name: string | null; subject: string | null; body: string | null };
  cta: { source: 'inline' | 'saved' | 'template'; id: string | null; text: string | null };
  subject: { source: 'inline' | 'saved' | 'generated'; id: string | null; text: string | null };
  instructions: string | null;
  content_mode: string | null;
  temperature: { effective: number; source: 'user' | 'global' };
}
