/**
 * Job titles of contacts, each with its seniority, job function, Form 5500 roles and a
 * one-line description. Small sponsors' contacts are owners and office managers; larger
 * sponsors' are HR and benefits staff. Broker contacts are producers, account teams and
 * principals.
 */
import type { FORM5500_ROLES, JOB_FUNCTIONS, SENIORITIES } from '../../mappings/reference.ts';
import { Weighted } from './prng.ts';

export interface TitleDef {
  readonly title: string;
  readonly seniority: (typeof SENIORITIES)[number];
  readonly fn: (typeof JOB_FUNCTIONS)[number];
  /** Form 5500 roles the holder typically has, most likely first. */
  readonly roles: readonly (typeof FORM5500_ROLES)[number][];
  /** Description; `{org}` is the employer's name. */
  readonly desc: string;
}

type Entry = readonly [def: TitleDef, smallWeight: number, largeWeight: number];

const t = (
  title: string,
  seniority: TitleDef['seniority'],
  fn: TitleDef['fn'],
  roles: TitleDef['roles'],
  desc: string,
  small: number,
  large: number,
): Entry => [{ title, seniority, fn, roles, desc }, small, large];

const COMPANY_TITLES: readonly Entry[] = [
  t('Owner', 'C-suite', 'Executive', ['Sponsor', 'Signer'], 'Owns and runs {org}, and signs its benefit plan filings.', 14, 0),
  t('President', 'C-suite', 'Executive', ['Sponsor', 'Signer', 'Trustee'], 'Leads {org} and approves its employee benefit programs.', 10, 2),
  t('Chief Executive Officer', 'C-suite', 'Executive', ['Signer', 'Sponsor'], 'Sets strategy for {org}, including its benefits budget.', 4, 2),
  t('Chief Financial Officer', 'C-suite', 'Finance', ['Signer', 'Trustee'], 'Oversees finance at {org}, including plan funding and renewals.', 3, 4),
  t('Chief Operating Officer', 'C-suite', 'Operations', ['Signer'], 'Runs day-to-day operations at {org}.', 2, 2),
  t('Chief Human Resources Officer', 'C-suite', 'HR', ['Plan Administrator', 'Signer'], 'Leads people strategy, compensation and benefits at {org}.', 0.5, 3),
  t('Chief People Officer', 'C-suite', 'HR', ['Plan Administrator', 'Signer'], 'Leads the people team at {org}, including total rewards.', 0.5, 2),
  t('VP of Human Resources', 'VP-Director', 'HR', ['Plan Administrator', 'Contact'], 'Directs human resources, benefits and HR compliance at {org}.', 1, 5),
  t('VP of Benefits', 'VP-Director', 'Benefits', ['Plan Administrator', 'Contact'], 'Owns the benefits strategy, vendors and renewals at {org}.', 0.2, 3),
  t('Director of Human Resources', 'VP-Director', 'HR', ['Plan Administrator', 'Contact'], 'Manages the HR function, benefits and employee relations at {org}.', 3, 6),
  t('Director of Total Rewards', 'VP-Director', 'Benefits', ['Plan Administrator', 'Contact'], 'Designs compensation and benefits programs at {org}.', 0.2, 3),
  t('Benefits Director', 'VP-Director', 'Benefits', ['Plan Administrator', 'Contact'], 'Directs health, welfare and retirement plans at {org}.', 0.3, 3),
  t('Controller', 'VP-Director', 'Finance', ['Trustee', 'Contact'], 'Manages accounting, payroll deductions and plan payments at {org}.', 3, 3),
  t('Director of Finance', 'VP-Director', 'Finance', ['Trustee', 'Contact'], 'Leads finance, budgeting and insurance spend at {org}.', 1, 2),
  t('Director of Operations', 'VP-Director', 'Operations', ['Contact'], 'Directs operations and vendor management at {org}.', 1.5, 2),
  t('General Counsel', 'VP-Director', 'Legal', ['Trustee', 'Contact'], 'Advises {org} on legal matters, including ERISA compliance.', 0.2, 1.5),
  t('Benefits Manager', 'Mid-Level', 'Benefits', ['Plan Administrator', 'Contact'], 'Administers health and welfare plans, open enrollment and carriers at {org}.', 1, 7),
  t('HR Manager', 'Mid-Level', 'HR', ['Plan Administrator', 'Contact'], 'Manages HR operations, onboarding and benefits enrollment at {org}.', 5, 6),
  t('Compensation and Benefits Manager', 'Mid-Level', 'Benefits', ['Plan Administrator', 'Contact'], 'Runs compensation reviews and benefits administration at {org}.', 0.5, 3),
  t('HR Business Partner', 'Mid-Level', 'HR', ['Contact'], 'Partners with business leaders at {org} on people programs.', 0.3, 3),
  t('Payroll Manager', 'Mid-Level', 'Finance', ['Contact'], 'Runs payroll and benefit deductions at {org}.', 2, 3),
  t('Office Manager', 'Mid-Level', 'Administration', ['Plan Administrator', 'Contact'], 'Manages the office, payroll and benefits paperwork at {org}.', 14, 1),
  t('Operations Manager', 'Mid-Level', 'Operations', ['Contact'], 'Manages operations, scheduling and vendors at {org}.', 3, 2),
  t('Accounting Manager', 'Mid-Level', 'Finance', ['Contact'], 'Manages accounts payable, reconciliations and plan invoices at {org}.', 2, 2),
  t('IT Manager', 'Mid-Level', 'IT', ['Contact'], 'Manages systems, including HR and benefits platforms, at {org}.', 0.5, 1),
  t('HR Generalist', 'Entry-Level', 'HR', ['Contact'], 'Handles onboarding, employee questions and benefits enrollment at {org}.', 2, 4),
  t('HR Coordinator', 'Entry-Level', 'HR', ['Contact'], 'Coordinates HR paperwork, enrollment and employee records at {org}.', 1.5, 3),
  t('Benefits Specialist', 'Entry-Level', 'Benefits', ['Contact', 'Plan Administrator'], 'Supports enrollment, eligibility and carrier billing at {org}.', 0.5, 4),
  t('Benefits Administrator', 'Entry-Level', 'Benefits', ['Plan Administrator', 'Contact'], 'Administers enrollment, COBRA and carrier files at {org}.', 1, 3),
  t('Payroll Specialist', 'Entry-Level', 'Finance', ['Contact'], 'Processes payroll and benefit deductions at {org}.', 2, 2),
  t('HR Assistant', 'Entry-Level', 'HR', ['Contact'], 'Supports the HR team at {org} with records, scheduling and enrollment.', 1, 2),
  t('Executive Assistant', 'Entry-Level', 'Administration', ['Contact'], 'Supports the executive team at {org}.', 2, 1),
  t('Administrative Assistant', 'Entry-Level', 'Administration', ['Contact'], 'Handles administration, payroll paperwork and benefits forms at {org}.', 4, 1),
  t('Staff Accountant', 'Entry-Level', 'Finance', ['Contact'], 'Keeps the books and reconciles benefit invoices at {org}.', 1, 1.5),
];

const BROKER_TITLES: readonly Entry[] = [
  t('Principal', 'C-suite', 'Executive', ['Broker of Record', 'Agent'], 'Leads {org} and manages its largest employer relationships.', 6, 1),
  t('Owner', 'C-suite', 'Executive', ['Broker of Record', 'Agent'], 'Owns {org} and advises employers on group benefits.', 8, 0),
  t('President', 'C-suite', 'Executive', ['Broker of Record'], 'Runs {org} and its employee benefits practice.', 4, 1),
  t('Managing Partner', 'C-suite', 'Executive', ['Broker of Record'], 'Manages the partners and the book of business at {org}.', 2, 2),
  t('Managing Director', 'VP-Director', 'Executive', ['Broker of Record'], 'Leads a region of the employee benefits practice at {org}.', 0.5, 3),
  t('Vice President, Employee Benefits', 'VP-Director', 'Sales', ['Broker of Record', 'Agent'], 'Grows and serves mid-market employer clients for {org}.', 1, 4),
  t('Director of Employee Benefits', 'VP-Director', 'Benefits', ['Broker of Record', 'Agent'], 'Directs benefits consulting and renewals at {org}.', 1, 3),
  t('Producer', 'Mid-Level', 'Sales', ['Broker of Record', 'Agent'], 'Brings new employer groups to {org} and places their coverage.', 5, 5),
  t('Benefits Producer', 'Mid-Level', 'Sales', ['Broker of Record', 'Agent'], 'Sells group health and ancillary plans for {org}.', 3, 3),
  t('Sales Executive', 'Mid-Level', 'Sales', ['Agent'], 'Prospects and closes new employer clients for {org}.', 1, 3),
  t('Employee Benefits Consultant', 'Mid-Level', 'Benefits', ['Broker of Record', 'Agent'], 'Designs plans, markets renewals and negotiates with carriers for {org} clients.', 4, 6),
  t('Senior Benefits Consultant', 'Mid-Level', 'Benefits', ['Broker of Record', 'Agent'], 'Leads renewal strategy, funding analysis and carrier negotiations for {org} clients.', 1, 4),
  t('Account Executive', 'Mid-Level', 'Account Management', ['Agent', 'Broker of Record'], 'Manages a book of employer accounts for {org}, from renewal to open enrollment.', 5, 6),
  t('Senior Account Executive', 'Mid-Level', 'Account Management', ['Agent', 'Broker of Record'], 'Leads service for larger employer accounts at {org}.', 1, 4),
  t('Account Manager', 'Mid-Level', 'Account Management', ['Agent'], 'Services employer groups for {org}: renewals, enrollment and claims issues.', 5, 5),
  t('Client Service Manager', 'Mid-Level', 'Account Management', ['Agent'], 'Manages the client service team at {org}.', 1, 3),
  t('Account Coordinator', 'Entry-Level', 'Account Management', ['Agent'], 'Coordinates enrollment files, census data and carrier paperwork for {org} clients.', 3, 4),
  t('Client Service Associate', 'Entry-Level', 'Account Management', ['Agent'], 'Answers employer and employee benefit questions for {org}.', 2, 4),
  t('Marketing Coordinator', 'Entry-Level', 'Marketing', ['Agent'], 'Prepares carrier marketing and renewal proposals at {org}.', 1, 2),
  t('Office Administrator', 'Entry-Level', 'Administration', ['Agent'], 'Runs the office and commission tracking at {org}.', 3, 1),
];

const table = (entries: readonly Entry[], col: 1 | 2): Weighted<TitleDef> => new Weighted(entries.map((e) => [e[0], e[col]] as const));

/** Company contacts at small sponsors (under 100 participants) and larger ones. */
export const COMPANY_TITLES_SMALL = table(COMPANY_TITLES, 1);
export const COMPANY_TITLES_LARGE = table(COMPANY_TITLES, 2);
/** Broker contacts at local brokers and at regional or national ones. */
export const BROKER_TITLES_LOCAL = table(BROKER_TITLES, 1);
export const BROKER_TITLES_LARGE = table(BROKER_TITLES, 2);
