import type { DocumentLocale } from '../../domain/documents.js';
import type { ReportType } from '../../domain/reports.js';
import { LABELS } from './labels.js';

/** The fixed words of a report PDF, in both languages. */
export interface ReportLabels {
  titles: Record<ReportType, string>;
  period: string;
  generatedAt: string;
  rows: string;
  total: string;
  currencyNote: string;
  noData: string;
  revenuePerDay: string;
  occupancyPerRoute: string;
  page: string;
  of: string;
  /** Status, payment, channel and trip status codes in words. */
  words: Record<string, string>;
}

const en: ReportLabels = {
  titles: {
    revenue: 'Revenue report',
    bookings: 'Bookings report',
    trips: 'Trips report',
    occupancy: 'Occupancy report',
  },
  period: 'Period',
  generatedAt: 'Generated',
  rows: 'Rows',
  total: 'Total',
  currencyNote: 'Amounts in Syrian pounds (SYP). Dates and times in Damascus time.',
  noData: 'No data for this period.',
  revenuePerDay: 'Net revenue per day',
  occupancyPerRoute: 'Occupancy per route',
  page: 'Page',
  of: 'of',
  words: {
    ...LABELS.en.statuses,
    UNPAID: 'Unpaid',
    SCHEDULED: 'Scheduled',
    BOARDING: 'Boarding',
    DELAYED: 'Delayed',
    DEPARTED: 'Departed',
    ARRIVED: 'Arrived',
    CUSTOMER_WEB: 'Web',
    CUSTOMER_MOBILE: 'Mobile app',
    RESELLER: 'Reseller',
  },
};

const ar: ReportLabels = {
  titles: {
    revenue: 'تقرير الإيرادات',
    bookings: 'تقرير الحجوزات',
    trips: 'تقرير الرحلات',
    occupancy: 'تقرير الإشغال',
  },
  period: 'الفترة',
  generatedAt: 'تاريخ الإنشاء',
  rows: 'عدد الأسطر',
  total: 'الإجمالي',
  currencyNote: 'المبالغ بالليرة السورية (ل.س). التواريخ والأوقات بتوقيت دمشق.',
  noData: 'لا توجد بيانات لهذه الفترة.',
  revenuePerDay: 'صافي الإيراد اليومي',
  occupancyPerRoute: 'نسبة الإشغال لكل خط',
  page: 'صفحة',
  of: 'من',
  words: {
    ...LABELS.ar.statuses,
    UNPAID: 'غير مدفوع',
    SCHEDULED: 'مجدولة',
    BOARDING: 'صعود الركاب',
    DELAYED: 'متأخرة',
    DEPARTED: 'انطلقت',
    ARRIVED: 'وصلت',
    CUSTOMER_WEB: 'الموقع',
    CUSTOMER_MOBILE: 'التطبيق',
    RESELLER: 'وكيل',
  },
};

export const REPORT_LABELS: Record<DocumentLocale, ReportLabels> = { ar, en };
